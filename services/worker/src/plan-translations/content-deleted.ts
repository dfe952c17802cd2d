import type { ContentDeleted } from '@tp/contracts';
import {
  entityKey,
  lockSources,
  lockTypeOwners,
  markContentReportPlanned,
  PermanentError,
  recordDeletion,
  removeFields,
  type Em,
} from '@tp/pipeline';

import { checkContentDeletion } from './check-content-change.js';

/**
 * ContentDeleted, in the planner's transaction: the entity's tombstone is written with the version of
 * the deletion, and its source and every stored translation are removed. The version is the event's,
 * or, when it has none, the highest stored one; a tombstone never goes back to a lower version. A
 * deletion older than a stored field (an explicit version below it) is stale and changes nothing, and
 * so does a deletion without a version of an entity with nothing stored.
 * Another module's entity or type is refused (MODULE_CONFLICT). Answers whether anything changed.
 */
export async function applyDeletion(em: Em, event: ContentDeleted): Promise<boolean> {
  const deletion = checkContentDeletion(event.data);
  const stored = (await lockSources(em, [deletion])).get(entityKey(deletion)) ?? [];
  const owner =
    stored[0]?.module ?? (await lockTypeOwners(em, [deletion.entityType])).get(deletion.entityType);
  if (owner !== undefined && owner !== deletion.module) {
    throw new PermanentError(
      'MODULE_CONFLICT',
      `entity type ${deletion.entityType} belongs to module ${owner}, not ${deletion.module}`,
    );
  }
  const highest = Math.max(0, ...stored.map((s) => s.sourceVersion));
  const stale = deletion.sourceVersion !== null && deletion.sourceVersion < highest;
  // Nothing stored and no version: nothing to delete, and no version to bar.
  const moot = stored.length === 0 && deletion.sourceVersion === null;
  const applies = !stale && !moot;
  if (applies) {
    await recordDeletion(em, { ...deletion, deletedVersion: deletion.sourceVersion ?? highest });
    await removeFields(em, deletion, undefined);
  }
  await markContentReportPlanned(em, event.eventId, []);
  return applies;
}
