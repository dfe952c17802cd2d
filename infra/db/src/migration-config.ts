import { fileURLToPath } from 'node:url';

import type { Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ormOptions } from '@tp/db';

import { MIGRATIONS } from './migrations/index.js';

/** Folder new migrations are written to by `npm run migrate -- create`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../src/migrations/', import.meta.url));

/**
 * ORM options plus the migrator. Migrations are listed explicitly (migrations/index.ts) rather than
 * discovered by glob, so the same list runs from TypeScript sources (tests) and compiled dist.
 */
export function migrationOptions(url: string): Options {
  return {
    ...ormOptions({ url, poolMax: 2 }),
    // The migrator reports each step through the ORM logger; MIGRATE_QUIET=1 (tests) keeps it silent.
    ...(process.env.MIGRATE_QUIET === '1' ? { logger: () => undefined } : {}),
    extensions: [Migrator],
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      migrationsList: [...MIGRATIONS],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
    },
  };
}
