import type { GlossaryWrites } from '../admin/translate/glossaries/glossaries.routes.js';
import type { Principal } from '../auth/api-key.store.js';
import type { TranslateText } from '../translate/translate.routes.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import type { UsageReport } from '../usage/read-usage.js';
import { deeplGlossaryRoutes } from './deepl-glossaries.routes.js';
import { deeplLanguagesRoutes } from './deepl-languages.routes.js';
import { deeplTranslateRoute } from './deepl-translate.routes.js';
import { deeplUsageRoute } from './deepl-usage.routes.js';

export interface DeepLRouteOptions {
  readonly translator: TranslatorClient;
  /** POST /api/v1/translate's use case. */
  readonly translate: TranslateText;
  readonly glossaries: GlossaryWrites;
  /** GET /api/v1/usage's use case. */
  readonly readUsage: (principal: Principal) => Promise<UsageReport>;
}

/** The DeepL-compatible API under /v2: thin adapters over the platform's own use cases. */
export function deeplRoutes({ translator, translate, glossaries, readUsage }: DeepLRouteOptions) {
  return [
    deeplTranslateRoute(translate, glossaries),
    ...deeplLanguagesRoutes(translator),
    deeplUsageRoute(readUsage),
    ...deeplGlossaryRoutes(glossaries, translator),
  ];
}
