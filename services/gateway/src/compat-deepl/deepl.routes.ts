import type { GlossaryWrites } from '../admin/translate/glossaries/glossaries.routes.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import { deeplGlossaryRoutes } from './deepl-glossaries.routes.js';
import { deeplLanguagesRoutes } from './deepl-languages.routes.js';

export interface DeepLRouteOptions {
  readonly translator: TranslatorClient;
  readonly glossaries: GlossaryWrites;
}

/** The DeepL-compatible API under /v2: thin adapters over the platform's own use cases. */
export function deeplRoutes({ translator, glossaries }: DeepLRouteOptions) {
  return [...deeplLanguagesRoutes(translator), ...deeplGlossaryRoutes(glossaries, translator)];
}
