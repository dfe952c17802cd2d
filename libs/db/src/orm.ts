import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { DependencyCheck } from '@tp/runtime';

import { ENTITIES } from './entities/index.js';

export type Orm = MikroORM;

export interface DatabaseOptions {
  readonly url: string;
  readonly poolMax?: number;
  readonly connectTimeoutMs?: number;
  readonly debug?: boolean;
  /** The name Postgres shows for the connections (pg_stat_activity.application_name). */
  readonly applicationName?: string;
}

/** MikroORM options shared by the services and the migration CLI (which adds the migrator). */
export function ormOptions({
  url,
  poolMax = 10,
  connectTimeoutMs = 3000,
  debug = false,
  applicationName,
}: DatabaseOptions): Options {
  return {
    clientUrl: url,
    entities: [...ENTITIES],
    // Every request or message works on its own fork (em.fork()); the global one is off limits.
    allowGlobalContext: false,
    debug,
    pool: { min: 0, max: poolMax },
    driverOptions: {
      connectionTimeoutMillis: connectTimeoutMs,
      ...(applicationName !== undefined && { application_name: applicationName }),
    },
    // Migrations are a deploy step (npm run migrate), never run on boot.
    ensureDatabase: false,
  };
}

/**
 * An ORM that has not connected yet (MikroORM connects at its first query): for tools that build a
 * service's objects without serving, such as the gateway's OpenAPI writer.
 */
export async function unconnectedDatabase(options: DatabaseOptions): Promise<Orm> {
  return MikroORM.init(ormOptions(options));
}

/** Connects and proves the connection with a query; throws with the driver's reason otherwise. */
export async function connectDatabase(options: DatabaseOptions, extra: Partial<Options> = {}): Promise<Orm> {
  const orm = await MikroORM.init({ ...ormOptions(options), ...extra });
  try {
    await ping(orm);
  } catch (err) {
    await orm.close(true);
    throw err;
  }
  return orm;
}

export function postgresCheck(orm: Orm): DependencyCheck {
  return {
    name: 'postgres',
    required: true,
    check: () => ping(orm),
  };
}

/** A real round trip (MikroORM connects lazily, so a status flag alone proves nothing). */
async function ping(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}
