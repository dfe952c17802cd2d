import type { ContentChanged, ContentChangedData } from '@tp/contracts';
import { executeBound, insertIntoOutbox } from '@tp/db';
import { markContentReportsPlanned, translationRequestedEntry } from '@tp/pipeline';
import type { EventCodec } from '@tp/schemas';

import type { ItemOutcome } from '../shared/coalescer.js';
import { planTranslations, type StoredFieldState, type TranslationPlan } from './plan-translations.js';
import {
  markHumanTranslationsStaleOf,
  readSettings,
  writeSourcesOf,
  type Em,
  type EntityAddress,
} from './source-store.js';

/** One ContentChanged as the planner stores it: the event, and its change checked. */
export interface PlannedChange {
  readonly event: ContentChanged;
  readonly change: ContentChangedData;
}

/**
 * Thrown inside the batch's transaction when a plan removes fields: removals take an exclusive lock
 * per entity, so such a batch is rolled back and its changes are stored one by one instead.
 */
export class NotBatchable extends Error {
  override readonly name = 'NotBatchable';
}

const entityKey = ({ entityType, entityId }: EntityAddress) => `${entityType}\u0000${entityId}`;

/** The entities as JSON records ({t, i}), for jsonb_to_recordset: the driver would spread arrays. */
const entitiesJson = (entities: readonly EntityAddress[]) =>
  JSON.stringify(entities.map((e) => ({ t: e.entityType, i: e.entityId })));

/** The stored fields of every entity, locked until the transaction ends (in key order). */
async function lockEntities(
  em: Em,
  entities: readonly EntityAddress[],
): Promise<Map<string, StoredFieldState[]>> {
  const rows = await executeBound<{
    entity_type: string;
    entity_id: string;
    module: string;
    field: string;
    source_lang: string;
    source_hash: string;
    source_version: string;
  }>(
    em,
    'select s.entity_type, s.entity_id, s.module, s.field, s.source_lang, s.source_hash, s.source_version ' +
      'from source_contents s where (s.entity_type, s.entity_id) in ' +
      '(select e.t, e.i from jsonb_to_recordset(?::jsonb) as e(t text, i text)) ' +
      'order by s.entity_type, s.entity_id, s.field for update of s',
    [entitiesJson(entities)],
    'all',
  );
  const stored = new Map<string, StoredFieldState[]>();
  for (const r of rows) {
    const key = entityKey({ entityType: r.entity_type, entityId: r.entity_id });
    const list = stored.get(key) ?? [];
    list.push({
      module: r.module,
      field: r.field,
      sourceLang: r.source_lang,
      sourceHash: r.source_hash,
      sourceVersion: Number(r.source_version),
    });
    stored.set(key, list);
  }
  return stored;
}

/** The owning module of each type (undefined when new); new types claimed under their locks, as lockTypeOwner. */
async function lockTypeOwners(em: Em, types: readonly string[]): Promise<Map<string, string | undefined>> {
  const owners = new Map<string, string | undefined>();
  if (types.length === 0) return owners;
  const ownersOf = async (list: readonly string[]) => {
    const rows = await executeBound<{ entity_type: string; module: string | null }>(
      em,
      'select t.entity_type, (select s.module from source_contents s where s.entity_type = t.entity_type limit 1) ' +
        'as module from jsonb_array_elements_text(?::jsonb) as t(entity_type)',
      [JSON.stringify(list)],
      'all',
    );
    for (const r of rows) owners.set(r.entity_type, r.module ?? undefined);
  };
  await ownersOf(types);
  const unowned = types.filter((t) => owners.get(t) === undefined).sort();
  if (unowned.length === 0) return owners;
  await executeBound(
    em,
    'select pg_advisory_xact_lock(hashtextextended(k, 0)) from jsonb_array_elements_text(?::jsonb) as k',
    [JSON.stringify(unowned.map((t) => `source_contents.entity_type:${t}`))],
    'all',
  );
  await ownersOf(unowned);
  return owners;
}

/** The tombstone version of each deleted entity among them. */
async function readDeletedVersions(em: Em, entities: readonly EntityAddress[]): Promise<Map<string, number>> {
  const rows = await executeBound<{ entity_type: string; entity_id: string; deleted_version: string }>(
    em,
    'select d.entity_type, d.entity_id, d.deleted_version from content_deletions d ' +
      'join jsonb_to_recordset(?::jsonb) as e(t text, i text) on d.entity_type = e.t and d.entity_id = e.i',
    [entitiesJson(entities)],
    'all',
  );
  return new Map(
    rows.map((r) => [
      entityKey({ entityType: r.entity_type, entityId: r.entity_id }),
      Number(r.deleted_version),
    ]),
  );
}

/** The languages each field of each entity has a human translation in; only with human-only languages. */
async function humanTranslationsOfAll(
  em: Em,
  entities: readonly EntityAddress[],
): Promise<Map<string, Map<string, Set<string>>>> {
  const rows = await executeBound<{
    entity_type: string;
    entity_id: string;
    field: string;
    target_lang: string;
  }>(
    em,
    'select t.entity_type, t.entity_id, t.field, t.target_lang from content_translations t ' +
      'join jsonb_to_recordset(?::jsonb) as e(t text, i text) on t.entity_type = e.t and t.entity_id = e.i ' +
      "where t.origin = 'human'",
    [entitiesJson(entities)],
    'all',
  );
  const byEntity = new Map<string, Map<string, Set<string>>>();
  for (const r of rows) {
    const key = entityKey({ entityType: r.entity_type, entityId: r.entity_id });
    const byField = byEntity.get(key) ?? new Map<string, Set<string>>();
    byField.set(r.field, (byField.get(r.field) ?? new Set()).add(r.target_lang));
    byEntity.set(key, byField);
  }
  return byEntity;
}

/**
 * The planner's work for the changes of several entities (each entity once), in the caller's
 * transaction and a fixed number of statements: the configuration, the entities' rows (locked), the
 * owners of new types, the tombstones, then the plans applied together (sources, stale human
 * translations, outbox, reports). Each change is planned as ContentChangedHandler.store plans one;
 * a change refused (MODULE_CONFLICT) is that change's outcome alone. Throws NotBatchable when a plan
 * removes fields.
 */
export async function storeChanges(
  em: Em,
  items: readonly PlannedChange[],
  output: { readonly codec: EventCodec; readonly topicPrefix: string },
): Promise<ItemOutcome<TranslationPlan>[]> {
  const changes = items.map((item) => item.change);
  const settings = await readSettings(em);
  const stored = await lockEntities(em, changes);
  const newTypes = [...new Set(changes.filter((c) => !stored.has(entityKey(c))).map((c) => c.entityType))];
  const owners = await lockTypeOwners(em, newTypes);
  const deleted = await readDeletedVersions(em, changes);
  const human =
    settings.humanOnlyLanguages.length > 0 ? await humanTranslationsOfAll(em, changes) : undefined;
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
      if (plan.removed.length > 0)
        throw new NotBatchable(`${change.entityType}/${change.entityId} removes fields`);
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
  { codec, topicPrefix }: { readonly codec: EventCodec; readonly topicPrefix: string },
): Promise<void> {
  const writes = accepted.map(({ item, plan }) => ({ change: item.change, writes: plan.writes }));
  await writeSourcesOf(em, writes);
  await markHumanTranslationsStaleOf(em, writes);
  const entries = accepted.flatMap(({ item: { event }, plan }) => {
    const context = { correlationId: event.correlationId, causationId: event.eventId };
    return plan.requests.map((request) => translationRequestedEntry(request, topicPrefix, context));
  });
  await insertIntoOutbox(em, codec, entries);
  await markContentReportsPlanned(
    em,
    accepted.map(({ item, plan }) => ({ trackingId: item.event.eventId, requests: plan.requests })),
  );
}
