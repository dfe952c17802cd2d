import { hash } from 'node:crypto';

import { insertIntoOutbox, type Orm } from '@tp/db';
import {
  readTranslationSettings,
  translationRequestedEntry,
  translationRequests,
  type StoredField,
} from '@tp/pipeline';
import { commandTimeout, type RedisClient } from '@tp/redis';
import type { EventCodec } from '@tp/schemas';
import { normaliseLanguageTag } from '@tp/translation';

export interface TranslationRequestsDeps {
  readonly orm: Orm;
  readonly redis: RedisClient | undefined;
  readonly codec: EventCodec;
  /** Prefix of Redis keys. */
  readonly keyPrefix: string;
  readonly topicPrefix: string;
  /** How long a field is not requested again in the same language for the same text, in seconds. */
  readonly throttleSeconds: number;
  readonly timeoutMs?: number;
}

/**
 * Asks the pipeline to translate fields a client read untranslated: TranslationRequested through the
 * outbox, like the planner's. Each (entity, field, language, text) is requested at most once per
 * throttle window (Redis SET NX EX), so a popular untranslated entity does not flood the queue; the
 * window also lets a lost request be made again later. Without Redis nothing is requested: better
 * a later read asks than every read does. Nothing is requested when translation is disabled, or in a
 * language that is not one of the configured target languages.
 */
export class TranslationRequests {
  private readonly bound;

  constructor(private readonly deps: TranslationRequestsDeps) {
    this.bound = commandTimeout(deps.timeoutMs ?? 250);
  }

  /** Requests `fields` of entities of `type` in `targetLang`; returns how many were requested. */
  async request(
    type: string,
    fields: readonly StoredField[],
    targetLang: string,
    correlationId: string,
  ): Promise<number> {
    const redis = this.deps.redis;
    if (fields.length === 0 || !redis?.isReady) return 0;
    if (!(await this.configuredTarget(targetLang))) return 0;
    const keys = fields.map((f) => this.throttleKey(type, f, targetLang));
    const multi = redis.multi();
    for (const key of keys) {
      multi.set(key, '1', { condition: 'NX', expiration: { type: 'EX', value: this.deps.throttleSeconds } });
    }
    const replies = await this.bound.execute(() => multi.execAsPipeline());
    const due = fields.filter((_, i) => String(replies[i]) === 'OK');
    if (due.length === 0) return 0;
    const entries = translationRequests(due, targetLang).map((request) =>
      translationRequestedEntry(request, this.deps.topicPrefix, { correlationId, causationId: null }),
    );
    try {
      // One statement: all the rows or none, without a transaction around it.
      await insertIntoOutbox(this.deps.orm.em.fork(), this.deps.codec, entries);
    } catch (err) {
      // Not requested after all: let the next read try again instead of waiting out the window.
      const taken = due.map((f) => this.throttleKey(type, f, targetLang));
      await this.bound.execute(() => redis.del(taken)).catch(() => undefined);
      throw err;
    }
    return due.length;
  }

  /**
   * Whether translation is enabled and `targetLang` is one of its target languages: a client's
   * x-language asks for a language, it does not add one to what the platform translates into.
   */
  private async configuredTarget(targetLang: string): Promise<boolean> {
    const config = await readTranslationSettings(this.deps.orm.em.fork());
    if (!config.enabled) return false;
    return config.targetLanguages.some((tag) => normaliseLanguageTag(tag) === targetLang);
  }

  /** Fixed length whatever the ids: a hash of the parts, joined by U+0000, which none contains. */
  private throttleKey(type: string, field: StoredField, targetLang: string): string {
    const parts = [type, field.entityId, field.field, targetLang, field.sourceHash].join('\u0000');
    return `${this.deps.keyPrefix}content:requested:${hash('sha256', parts, 'hex').slice(0, 32)}`;
  }
}
