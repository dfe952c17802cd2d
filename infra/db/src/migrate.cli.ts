import { parseArgs } from 'node:util';

import { env, parseEnv, redactUrl } from '@tp/runtime';
import { z } from 'zod';

import { ensureDatabase } from './ensure-database.js';
import { createMigration, migrateDown, migrateUp, pendingMigrations } from './migrate.js';

const USAGE = `usage: npm run migrate -- [up|down|pending|create --name <name>] [--to <migration>]
  up       create the database if missing, then apply pending migrations (default)
  down     revert the last migration (or down to --to)
  pending  list migrations not applied yet
  create   write a new migration with the difference between entities and database
Settings: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/translation_platform)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const command = positionals[0] ?? 'up';

try {
  const { DATABASE_URL: url } = parseEnv(
    z.object({
      DATABASE_URL: env.url(
        ['postgres', 'postgresql'],
        'postgres://postgres@127.0.0.1:5432/translation_platform',
      ),
    }),
  );
  if (values.help) {
    console.log(USAGE);
  } else if (command === 'up') {
    if (await ensureDatabase(url)) console.log(`created database ${redactUrl(url)}`);
    const applied = await migrateUp(url);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } else if (command === 'down') {
    const reverted = await migrateDown(url, values.to);
    console.log(reverted.length ? `reverted: ${reverted.join(', ')}` : 'nothing to revert');
  } else if (command === 'pending') {
    const pending = await pendingMigrations(url);
    console.log(pending.length ? pending.join('\n') : 'no pending migrations');
  } else if (command === 'create') {
    if (!values.name) throw new Error('create needs --name <name>');
    console.log(`wrote ${await createMigration(url, values.name)}; add it to migrations/index.ts`);
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
} catch (err) {
  console.error(`migrate ${command} failed: ${(err as Error).message}`);
  process.exitCode = 1;
}
