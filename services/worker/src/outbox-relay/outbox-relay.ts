import { setTimeout as sleep } from 'node:timers/promises';

import { OutboxMessage, type Orm } from '@tp/db';
import type { MessageProducer, OutgoingMessage } from '@tp/kafka';
import type { Logger } from '@tp/runtime';
import { Counter, type Registry } from 'prom-client';

export interface OutboxRelayOptions {
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  readonly retentionMs: number;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

const MAX_BACKOFF_MS = 5000;
const PURGE_EVERY_MS = 10 * 60 * 1000;

/**
 * Publishes outbox rows in id order and marks them published, in one transaction per batch: rows are
 * locked (FOR UPDATE SKIP LOCKED), sent with the idempotent producer, then marked. A crash between send
 * and commit leaves the rows unpublished, so they are sent again: duplicates are possible, loss is not.
 * Consumers are idempotent (event ids, version-guarded upserts).
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wake = new AbortController();
  private readonly published?: Counter;
  private readonly failures?: Counter;
  private lastPurge = 0;

  constructor(
    private readonly orm: Orm,
    private readonly producer: MessageProducer,
    private readonly options: OutboxRelayOptions,
  ) {
    if (options.metrics) {
      this.published = new Counter({
        name: 'outbox_published_total',
        help: 'Outbox messages published to Kafka',
        registers: [options.metrics],
      });
      this.failures = new Counter({
        name: 'outbox_relay_failures_total',
        help: 'Relay batches that failed and will be retried',
        registers: [options.metrics],
      });
    }
  }

  /** Publishes one batch; returns how many rows it published. */
  async relayOnce(): Promise<number> {
    const em = this.orm.em.fork();
    // Plain SQL: hydrating hundreds of entities per batch cost more CPU than publishing them.
    const count = await em.transactional(async (tx) => {
      const rows = await tx.execute<OutboxRow[]>(
        'select id, topic, message_key, payload, headers from outbox where published_at is null ' +
          'order by id limit ? for update skip locked',
        [this.options.batchSize],
      );
      if (rows.length === 0) return 0;
      for (const [topic, messages] of byTopic(rows)) await this.producer.send(topic, messages);
      // The ids as one array literal (they are digits): the driver would spread an array parameter.
      await tx.execute('update outbox set published_at = now() where id = any(?::bigint[])', [
        `{${rows.map((r) => r.id).join(',')}}`,
      ]);
      return rows.length;
    });
    this.published?.inc(count);
    return count;
  }

  /** Deletes published rows older than the retention; returns how many. */
  async purgePublished(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - this.options.retentionMs);
    return this.orm.em.fork().nativeDelete(OutboxMessage, { publishedAt: { $lt: cutoff } });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Lets the batch in hand finish (so it is marked), then returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let published = 0;
      try {
        published = await this.relayOnce();
        failures = 0;
        if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
          this.lastPurge = Date.now();
          await this.purgePublished();
        }
      } catch (err) {
        failures++;
        this.failures?.inc();
        this.options.logger.warn({ err, failures }, 'outbox relay batch failed; retrying');
      }
      if (published === this.options.batchSize) continue;
      const delay = failures
        ? Math.min(this.options.pollIntervalMs * 2 ** failures, MAX_BACKOFF_MS)
        : this.options.pollIntervalMs;
      await sleep(delay, undefined, { signal: this.wake.signal }).catch(() => undefined);
    }
  }
}

interface OutboxRow {
  readonly id: string;
  readonly topic: string;
  readonly message_key: string | null;
  readonly payload: Buffer;
  readonly headers: Record<string, string>;
}

function byTopic(rows: readonly OutboxRow[]): Map<string, OutgoingMessage[]> {
  const groups = new Map<string, OutgoingMessage[]>();
  for (const row of rows) {
    const list = groups.get(row.topic) ?? [];
    list.push({ key: row.message_key, value: row.payload, headers: row.headers });
    groups.set(row.topic, list);
  }
  return groups;
}
