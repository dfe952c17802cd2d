import type { GlossaryVersions, Orm } from '@tp/db';
import type { RedisClient } from '@tp/redis';
import type { Logger } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import { GatewayCommandBus } from '../../commands/command-bus.js';
import type { TranslatorClient } from '../../translate/translator-client.js';
import { TranslationRequests } from '../../content/read-content/translation-requests.js';
import { backfillRoutes } from './backfill/backfill.routes.js';
import { GlossaryRetranslation } from './glossaries/glossary-retranslation.js';
import { GlossaryStore } from './glossaries/glossary.store.js';
import { glossaryRoutes, glossaryWrites, type GlossaryWrites } from './glossaries/glossaries.routes.js';
import { translationConfigRoutes } from './config/translation-config.routes.js';
import { TranslationConfigStore } from './translation-config.store.js';
import { RetranslateEntityHandler } from './retranslate/retranslate.handler.js';
import { retranslateRoute } from './retranslate/retranslate.routes.js';
import { testTranslationRoute } from './test-translation/test-translation.routes.js';

export interface TranslateAdminOptions {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly translator: TranslatorClient;
  readonly topicPrefix: string;
  readonly maxTextChars: number;
  /** For requesting stored content again after a glossary edit (throttled per field in Redis). */
  readonly redis?: RedisClient | undefined;
  readonly keyPrefix?: string;
  readonly requestThrottleSeconds?: number;
  readonly logger?: Logger;
}

/** The spec's admin translation endpoints besides the status: config, glossaries, test, retranslate, backfill. */
export function translateAdminRoutes(options: TranslateAdminOptions, glossaries: GlossaryWrites) {
  const { orm, codec, translator, topicPrefix, maxTextChars } = options;
  return [
    ...translationConfigRoutes(new TranslationConfigStore(orm)),
    ...glossaryRoutes(glossaries),
    testTranslationRoute(translator, maxTextChars),
    retranslateRoute(new GatewayCommandBus([new RetranslateEntityHandler({ orm, codec, topicPrefix })])),
    ...backfillRoutes(orm),
  ];
}

/** The glossary use cases (admin API, DeepL's /v2/glossaries) over one store and one request-again. */
export const adminGlossaries = (
  options: TranslateAdminOptions,
  versions?: Pick<GlossaryVersions, 'expire'>,
): GlossaryWrites => glossaryWrites(new GlossaryStore(options.orm), glossaryRetranslation(options), versions);

/**
 * Requests again, after a glossary edit, the stored content its changed terms touch: the read path's
 * throttled requests, under keys of their own per glossary state (version) (docs/decisions.md).
 */
function glossaryRetranslation(options: TranslateAdminOptions): GlossaryRetranslation {
  const { orm, codec, redis, topicPrefix } = options;
  const keyPrefix = options.keyPrefix ?? '';
  return new GlossaryRetranslation(
    orm,
    (state) =>
      new TranslationRequests({
        orm,
        redis,
        codec,
        keyPrefix: `${keyPrefix}glossary:${state}:`,
        topicPrefix,
        throttleSeconds: options.requestThrottleSeconds ?? 3600,
      }),
    options.logger,
  );
}
