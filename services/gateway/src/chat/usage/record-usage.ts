import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

import type { ChatUsage } from './chat-usage.store.js';

/**
 * Tokens guessed from characters when a provider sent no usage (a stream cut short before its last
 * chunk): about four characters a token, OpenAI's rule of thumb for English text.
 */
export const CHARS_PER_TOKEN = 4;

export const estimatedTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export interface UsageRetry {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** Wait before the second try, in ms; doubled before each further one. */
  readonly firstDelayMs: number;
}

/**
 * Writes usage records after the answer has gone out, retrying a failed write with a doubling wait.
 * A record still not written after the last try is logged whole (so it can be replayed from the
 * logs) and counted in `chat_usage_records_lost_total`; the client never sees any of it.
 */
export class ChatUsageRecorder {
  private readonly lost: Counter;
  private readonly retried: Counter;

  constructor(
    private readonly store: { record(usage: ChatUsage): Promise<void> },
    private readonly logger: Logger,
    metrics: Registry,
    private readonly retry: UsageRetry,
  ) {
    this.lost = new Counter({
      name: 'chat_usage_records_lost_total',
      help: 'Chat usage records not written after every retry (logged in full as "chat usage lost")',
      registers: [metrics],
    });
    this.retried = new Counter({
      name: 'chat_usage_write_retries_total',
      help: 'Failed chat usage writes that were tried again',
      registers: [metrics],
    });
  }

  /** Resolves once the record is written or given up; never rejects. */
  async record(usage: ChatUsage): Promise<void> {
    let delay = this.retry.firstDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.store.record(usage);
        return;
      } catch (err) {
        if (attempt >= this.retry.attempts) {
          this.lost.inc();
          this.logger.error({ err, usage, attempts: attempt }, 'chat usage lost');
          return;
        }
        this.retried.inc();
        this.logger.warn({ err, requestId: usage.requestId, attempt }, 'chat usage write failed; retrying');
      }
      await sleep(delay);
      delay *= 2;
    }
  }
}
