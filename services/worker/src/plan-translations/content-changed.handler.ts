import type { ContentChanged, ContentChangedData, ContentDeleted } from '@tp/contracts';
import type { Orm } from '@tp/db';
import type { IncomingMessage } from '@tp/kafka';
import { dataErrorAsPermanent, PermanentError } from '@tp/pipeline';
import { Coalescer, perRegistry, withSpan, type ItemOutcome } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import { Counter, type Registry } from 'prom-client';

import type { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { checkContentChange } from './check-content-change.js';
import { applyDeletion } from './content-deleted.js';
import type { TranslationPlan } from './plan-translations.js';
import { fieldRequests, storeChanges, type PlannedChange } from './store-changes.js';

export interface ContentChangedHandlerOptions {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly cache: ReadCacheInvalidator;
  readonly topicPrefix: string;
  readonly metrics?: Registry;
  /** Most changes stored by one transaction (changes handled at the same time share it). Default 100. */
  readonly maxBatch?: number;
}

/** Deletions applied at once, each in a transaction of its own (a connection each). */
const DELETIONS_AT_ONCE = 2;

interface PlannerCounters {
  readonly requested: Counter;
  readonly skipped: Counter<'reason'>;
}

const plannerCounters = perRegistry((registry): PlannerCounters => ({
  requested: new Counter({
    name: 'planner_translations_requested_total',
    help: 'TranslationRequested events the planner wrote to the outbox (field x target language)',
    registers: [registry],
  }),
  skipped: new Counter({
    name: 'planner_fields_skipped_total',
    help: 'Reported fields that requested nothing: stale (a newer version is stored) or unchanged text',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
}));

/**
 * ContentChanged -> source_contents + TranslationRequested (outbox), in a transaction: the
 * configuration is read there (so a change applies to the next transaction), the entity's rows are
 * locked, the plan is applied (fields left out are removed with their translations) and its requests
 * are added to the outbox. Changes handled at the same time (other entities of the batch) share one
 * transaction and a fixed number of statements (store-changes.ts); if it fails, or a plan removes
 * fields, each is stored in a transaction of its own, so a change the database refuses fails alone.
 * ContentDeleted (same topic, same key) removes the entity and leaves its tombstone
 * (content-deleted.ts). The report's tracking row is marked planned in the same transaction; the
 * read cache of the entity is dropped after the commit. Redelivery is harmless: the stored hashes make
 * the plan empty, and a deletion deletes nothing twice.
 */
export class ContentChangedHandler {
  private readonly counters?: PlannerCounters;
  private readonly changes: Coalescer<PlannedChange, TranslationPlan>;
  private readonly deletions: Coalescer<ContentDeleted, boolean>;

  constructor(private readonly options: ContentChangedHandlerOptions) {
    if (options.metrics) this.counters = plannerCounters(options.metrics);
    this.changes = new Coalescer((items) => this.storeBatch(items), {
      maxBatch: options.maxBatch ?? 100,
      maxInFlight: 1,
    });
    this.deletions = new Coalescer((events) => this.deleteOneByOne(events), {
      maxBatch: 1,
      maxInFlight: DELETIONS_AT_ONCE,
    });
  }

  readonly handle = async (message: IncomingMessage): Promise<void> => {
    const event = this.options.codec.decode(message.value, message.headers);
    if (event.eventType === 'ContentDeleted') {
      const deleted = await this.deletions.submit(event).catch(rethrowDataErrorsAsPermanent);
      if (deleted) await this.options.cache.invalidate(event.data.entityType, event.data.entityId);
      return;
    }
    if (event.eventType !== 'ContentChanged') {
      throw new PermanentError('UNEXPECTED_EVENT_TYPE', `${event.eventType} on the ContentChanged topic`);
    }
    const change = checkContentChange(event.data);
    const attributes = { 'tp.entity_type': change.entityType, 'tp.entity_id': change.entityId };
    const plan = await withSpan('planner', attributes, async (span) => {
      const planned = await this.changes.submit({ event, change }).catch(rethrowDataErrorsAsPermanent);
      span.setAttribute('tp.translations_requested', fieldRequests(planned).length);
      return planned;
    });
    this.counters?.requested.inc(fieldRequests(plan).length);
    if (plan.stale.length) this.counters?.skipped.inc({ reason: 'stale' }, plan.stale.length);
    if (plan.unchanged.length) this.counters?.skipped.inc({ reason: 'unchanged' }, plan.unchanged.length);
    if (plan.writes.length > 0 || plan.removed.length > 0) {
      await this.options.cache.invalidate(change.entityType, change.entityId);
    }
  };

  /** The changes in one transaction; one by one when that fails or cannot be (see storeChanges). */
  private async storeBatch(items: readonly PlannedChange[]): Promise<ItemOutcome<TranslationPlan>[]> {
    const entities = new Set(items.map(({ change }) => `${change.entityType}\u0000${change.entityId}`));
    if (items.length > 1 && entities.size === items.length) {
      const { codec, topicPrefix } = this.options;
      try {
        return await this.options.orm.em
          .fork()
          .transactional((em) => storeChanges(em, items, { codec, topicPrefix }));
      } catch {
        // One by one below: each change's own error (a refused value, a lost connection) is its outcome.
      }
    }
    return settleEach(items, ({ event, change }) => this.store(event, change));
  }

  private deleteOneByOne(events: readonly ContentDeleted[]): Promise<ItemOutcome<boolean>[]> {
    return settleEach(events, (event) =>
      this.options.orm.em.fork().transactional((em) => applyDeletion(em, event)),
    );
  }

  /** One change in a transaction of its own (it may remove fields), through the batch's statements. */
  private store(event: ContentChanged, change: ContentChangedData): Promise<TranslationPlan> {
    const { codec, topicPrefix } = this.options;
    return this.options.orm.em.fork().transactional(async (em) => {
      const [outcome] = await storeChanges(em, [{ event, change }], { codec, topicPrefix });
      if (!outcome?.ok) throw outcome?.error ?? new Error('no outcome');
      return outcome.value;
    });
  }
}

/** Runs `work` for each item in turn; each item's result or error is its outcome. */
async function settleEach<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<ItemOutcome<R>[]> {
  const outcomes: ItemOutcome<R>[] = [];
  for (const item of items) {
    outcomes.push(
      await work(item).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    );
  }
  return outcomes;
}

/** A change the database refuses as data is permanent (CONTENT_INVALID); see dataErrorAsPermanent. */
function rethrowDataErrorsAsPermanent(err: unknown): never {
  throw dataErrorAsPermanent(err, 'CONTENT_INVALID');
}
