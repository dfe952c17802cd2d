import type { ContentChanged, ContentChangedData } from '@tp/contracts';
import { insertIntoOutbox } from '@tp/db';
import {
  deletedVersions,
  entityKey,
  humanTranslationLanguages,
  lockSources,
  lockTypeOwners,
  markContentReportsPlanned,
  markHumanTranslationsStale,
  readTranslationSettings,
  removeFields,
  requestedFields,
  translationRequestedEntry,
  writeSources,
  type Em,
} from '@tp/pipeline';
import type { ItemOutcome } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import { planTranslations, type TranslationPlan } from './plan-translations.js';

/** One ContentChanged as the planner stores it: the event, and its change checked. */
export interface PlannedChange {
  readonly event: ContentChanged;
  readonly change: ContentChangedData;
}

/**
 * Thrown inside a batch's transaction when a plan removes fields: removals take an exclusive lock
 * per entity, in no fixed order across entities, so such a batch is rolled back and its changes are
 * stored one by one instead.
 */
export class NotBatchable extends Error {
  override readonly name = 'NotBatchable';
}

interface Output {
  readonly codec: EventCodec;
  readonly topicPrefix: string;
}

/**
 * The planner's work for the changes of one or more entities (each entity once), in the caller's
 * transaction and a fixed number of statements (the content store's batched reads and writes): the
 * configuration, the entities' rows (locked), the owners of new types, the tombstones, then the plans
 * applied together (sources, stale human translations, outbox, reports). A change refused
 * (MODULE_CONFLICT) is that change's outcome alone. A change alone may remove fields; in a batch of
 * several, a plan that removes fields throws NotBatchable.
 */
export async function storeChanges(
  em: Em,
  items: readonly PlannedChange[],
  output: Output,
): Promise<ItemOutcome<TranslationPlan>[]> {
  const changes = items.map((item) => item.change);
  const settings = await readTranslationSettings(em, { waitForChange: true });
  const stored = await lockSources(em, changes);
  const newTypes = [...new Set(changes.filter((c) => !stored.has(entityKey(c))).map((c) => c.entityType))];
  const owners = await lockTypeOwners(em, newTypes);
  const deleted = await deletedVersions(em, changes);
  const human =
    settings.humanOnlyLanguages.length > 0 ? await humanTranslationLanguages(em, changes) : undefined;
  const outcomes: ItemOutcome<TranslationPlan>[] = [];
  const accepted: { item: PlannedChange; plan: TranslationPlan }[] = [];
  for (const item of items) {
    const { change } = item;
    const key = entityKey(change);
    const rows = stored.get(key) ?? [];
    try {
      const plan = planTranslations({
        change,
        typeOwner: rows.length > 0 ? undefined : owners.get(change.entityType),
        stored: rows,
        settings,
        deletedVersion: deleted.get(key),
        humanTranslations: human ? (human.get(key) ?? new Map()) : undefined,
      });
      if (plan.removed.length > 0) {
        if (items.length > 1)
          throw new NotBatchable(`${change.entityType}/${change.entityId} removes fields`);
        await removeFields(em, change, plan.removed);
      }
      // Its rows now name the type's owner for the changes after it (as they would one by one).
      if (plan.writes.length > 0 && !owners.get(change.entityType))
        owners.set(change.entityType, change.module);
      accepted.push({ item, plan });
      outcomes.push({ ok: true, value: plan });
    } catch (error) {
      if (error instanceof NotBatchable) throw error;
      outcomes.push({ ok: false, error });
    }
  }
  await applyPlans(em, accepted, output);
  return outcomes;
}

async function applyPlans(
  em: Em,
  accepted: readonly { item: PlannedChange; plan: TranslationPlan }[],
  { codec, topicPrefix }: Output,
): Promise<void> {
  const writes = accepted.map(({ item: { change }, plan }) => {
    const requested = new Set(fieldRequests(plan).map(({ field }) => field));
    return {
      module: change.module,
      entityType: change.entityType,
      entityId: change.entityId,
      writes: plan.writes.map((write) => ({ ...write, requested: requested.has(write.field) })),
    };
  });
  await writeSources(em, writes);
  await markHumanTranslationsStale(em, writes);
  const entries = accepted.flatMap(({ item: { event }, plan }) => {
    const context = { correlationId: event.correlationId, causationId: event.eventId };
    return plan.requests.map((request) => translationRequestedEntry(request, topicPrefix, context));
  });
  await insertIntoOutbox(em, codec, entries);
  await markContentReportsPlanned(
    em,
    accepted.map(({ item, plan }) => ({ trackingId: item.event.eventId, requests: fieldRequests(plan) })),
  );
}

/** Each field and language a plan requests (a request carries several fields of one language). */
export function fieldRequests(plan: TranslationPlan): { field: string; targetLang: string }[] {
  return plan.requests.flatMap((request) =>
    requestedFields(request).map(({ field }) => ({ field, targetLang: request.targetLang })),
  );
}
