/**
 * Redis key of the cached merged views of one entity: a hash with one field per language. The
 * gateway's query side fills it; the planner and the projection delete it when the entity changes.
 */
export function contentReadCacheKey(prefix: string, entityType: string, entityId: string): string {
  return `${prefix}content:${entityType.length}:${entityType}:${entityId}`;
}
