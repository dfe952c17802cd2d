import type { Orm } from '@tp/db';
import type { RedisClient } from '@tp/redis';
import { EventCodec } from '@tp/schemas';

import { GatewayCommandBus } from '../commands/command-bus.js';
import type { AnyRoute } from '../http/route.js';
import { DeleteContentHandler } from './delete-content/delete-content.handler.js';
import { deleteContentRoute } from './delete-content/delete-content.routes.js';
import { EditTranslationHandler } from './edit-translation/edit-translation.handler.js';
import { editTranslationRoute } from './edit-translation/edit-translation.routes.js';
import { ContentStore } from './read-content/content.store.js';
import { ContentReadCache } from './read-content/content-read-cache.js';
import { ReadContent } from './read-content/read-content.js';
import { readContentRoutes } from './read-content/read-content.routes.js';
import { TranslationRequests } from './read-content/translation-requests.js';
import type { TopicLimit } from './report-change/deliverable-size.js';
import { ReportContentChangeHandler } from './report-change/report-change.handler.js';
import { reportChangeRoute } from './report-change/report-change.routes.js';
import { trackReportRoute } from './track-report/track-report.routes.js';

export interface ContentDeps {
  readonly orm: Orm;
  readonly redis: RedisClient | undefined;
  /** The connection the read cache uses, whose reads are kept in memory (createCachingRedis). */
  readonly cacheRedis?: RedisClient | undefined;
  readonly codec?: EventCodec;
  readonly keyPrefix: string;
  readonly topicPrefix: string;
  /** Longest text of one field, in characters. */
  readonly maxTextChars: number;
  /** Lifetime of a cached merged view, in seconds; 0 turns the read cache off. */
  readonly readCacheTtlSeconds: number;
  /** How long a field read untranslated is not requested again, in seconds. */
  readonly requestThrottleSeconds: number;
  /** The topics' max.message.bytes, for refusing reports that could not travel. */
  readonly topicLimit?: TopicLimit;
}

/**
 * The content pipeline's edge: the commands (report a change, delete an entity) and the queries (read
 * merged content, track a report).
 */
export function contentRoutes(deps: ContentDeps): AnyRoute[] {
  const codec = deps.codec ?? new EventCodec();
  const commands = new GatewayCommandBus([
    new ReportContentChangeHandler({
      orm: deps.orm,
      codec,
      topicPrefix: deps.topicPrefix,
      ...(deps.topicLimit ? { topicLimit: deps.topicLimit } : {}),
    }),
    new DeleteContentHandler({ orm: deps.orm, codec, topicPrefix: deps.topicPrefix }),
    new EditTranslationHandler({ orm: deps.orm, redis: deps.redis, keyPrefix: deps.keyPrefix }),
  ]);
  const reader = new ReadContent(
    new ContentStore(deps.orm),
    new ContentReadCache(deps.cacheRedis ?? deps.redis, deps.keyPrefix, deps.readCacheTtlSeconds),
    new TranslationRequests({
      orm: deps.orm,
      redis: deps.redis,
      codec,
      keyPrefix: deps.keyPrefix,
      topicPrefix: deps.topicPrefix,
      throttleSeconds: deps.requestThrottleSeconds,
    }),
  );
  // Tracking before the reads: GET /api/v1/content/{type}/{id} would take its path (type `tracking`
  // is reserved for it).
  return [
    reportChangeRoute(commands, deps.maxTextChars),
    deleteContentRoute(commands),
    trackReportRoute(deps.orm),
    editTranslationRoute(commands, deps.maxTextChars),
    ...readContentRoutes(reader),
  ] as AnyRoute[];
}
