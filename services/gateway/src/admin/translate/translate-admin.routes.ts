import type { Orm } from '@tp/db';
import { EventCodec } from '@tp/schemas';

import { GatewayCommandBus } from '../../commands/command-bus.js';
import type { TranslatorClient } from '../../translate/translator-client.js';
import { GlossaryStore } from './glossaries/glossary.store.js';
import { glossaryRoutes } from './glossaries/glossaries.routes.js';
import { translationConfigRoutes } from './config/translation-config.routes.js';
import { TranslationConfigStore } from './translation-config.store.js';
import { RetranslateEntityHandler } from './retranslate/retranslate.handler.js';
import { retranslateRoute } from './retranslate/retranslate.routes.js';
import { testTranslationRoute } from './test-translation/test-translation.routes.js';

export interface TranslateAdminOptions {
  readonly orm: Orm;
  readonly translator: TranslatorClient;
  readonly topicPrefix: string;
  readonly maxTextChars: number;
}

/** The spec's admin translation endpoints besides the status: config, glossaries, test and retranslate. */
export function translateAdminRoutes({ orm, translator, topicPrefix, maxTextChars }: TranslateAdminOptions) {
  return [
    ...translationConfigRoutes(new TranslationConfigStore(orm)),
    ...glossaryRoutes(new GlossaryStore(orm)),
    testTranslationRoute(translator, maxTextChars),
    retranslateRoute(
      new GatewayCommandBus([new RetranslateEntityHandler({ orm, codec: new EventCodec(), topicPrefix })]),
    ),
  ];
}
