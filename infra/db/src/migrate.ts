import { MikroORM } from '@mikro-orm/postgresql';

import { migrationOptions } from './migration-config.js';

/** Applies every pending migration; returns the names applied. */
export async function migrateUp(url: string): Promise<string[]> {
  return withMigrator(url, async (orm) => (await orm.migrator.up()).map((m) => m.name));
}

export async function migrateDown(url: string, to?: string): Promise<string[]> {
  return withMigrator(url, async (orm) =>
    (await orm.migrator.down(to === undefined ? undefined : { to })).map((m) => m.name),
  );
}

export async function pendingMigrations(url: string): Promise<string[]> {
  return withMigrator(url, async (orm) => (await orm.migrator.getPending()).map((m) => m.name));
}

/**
 * SQL that would bring the database in line with the entities; empty when migrations and entities
 * agree (a test keeps them that way).
 */
export async function schemaDrift(url: string): Promise<string> {
  return withMigrator(url, async (orm) => (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim());
}

export async function createMigration(url: string, name: string): Promise<string> {
  return withMigrator(
    url,
    async (orm) => (await orm.migrator.create(undefined, false, false, name)).fileName,
  );
}

async function withMigrator<T>(url: string, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init(migrationOptions(url));
  try {
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}
