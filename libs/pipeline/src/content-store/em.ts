import type { Orm } from '@tp/db';

/** The entity manager (a fork, or its transaction) every statement of the content store runs on. */
export type Em = Orm['em'];

/** One entity, by type and id. */
export interface EntityAddress {
  readonly entityType: string;
  readonly entityId: string;
}

/** A map key of one entity. */
export const entityKey = ({ entityType, entityId }: EntityAddress): string =>
  `${entityType}\u0000${entityId}`;

/** The entities as JSON records ({t, i}), for jsonb_to_recordset: the driver would spread arrays. */
export const entitiesJson = (entities: readonly EntityAddress[]): string =>
  JSON.stringify(entities.map((e) => ({ t: e.entityType, i: e.entityId })));
