import type { Orm } from '@tp/db';
import { reservedTypeReason, typeOwner } from '@tp/pipeline';
import { AppError } from '@tp/runtime';

import type { Principal } from '../auth/api-key.store.js';
import { inScope } from '../auth/module-scope.js';

/** 400 ENTITY_TYPE_RESERVED for a type the rulebook reserves (`text`, `tracking`). */
export function assertTypeNotReserved(type: string): void {
  const reason = reservedTypeReason(type);
  if (reason) throw new AppError('ENTITY_TYPE_RESERVED', `entity type ${type} ${reason}`, { type });
}

/**
 * 409 MODULE_CONFLICT when another module owns the type (docs/pipeline.md): any stored row of the
 * type names its owner, one index lookup however many entities the type has. The planner checks
 * again, for reports produced to Kafka directly and for two modules racing here.
 */
export async function assertTypeOwner(em: Orm['em'], module: string, entityType: string): Promise<void> {
  const owner = await typeOwner(em, entityType);
  if (owner !== undefined && owner !== module) {
    throw new AppError(
      'MODULE_CONFLICT',
      `entity type ${entityType} belongs to module ${owner}, not ${module}`,
      {
        type: entityType,
        module: owner,
      },
    );
  }
}

/**
 * A MODULE_CONFLICT as a scoped key may see it: that the type is taken, the key must learn; by which
 * module outside its scope, it must not.
 */
export function conflictForKey(err: unknown, principal: Principal | undefined, type: string): unknown {
  if (!(err instanceof AppError) || err.code !== 'MODULE_CONFLICT') return err;
  const module = (err.details as { module?: unknown } | undefined)?.module;
  if (inScope(principal, typeof module === 'string' ? module : '')) return err;
  return new AppError('MODULE_CONFLICT', `entity type ${type} belongs to another module`, { type });
}

/** The id of the key a report is tracked for (every content route requires a key). */
export function reporterOf(principal: Principal | undefined): string {
  if (!principal) throw new AppError('API_KEY_MISSING', 'an API key is required');
  return principal.keyId;
}
