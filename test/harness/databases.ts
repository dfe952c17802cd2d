import { randomBytes } from 'node:crypto';

import pg from 'pg';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** A database of this test file's own, copied from the migrated template (fast: no migrations to run). */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const server = serverUrl();
  const template = options.empty ? 'template0' : process.env.TP_TEST_TEMPLATE_DB;
  if (!template) throw new Error('global setup did not prepare a template database');
  const name = `tp_t_${randomBytes(5).toString('hex')}`;
  await withAdmin((c) => c.query(`create database ${name} template ${template}`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/**
 * A pool on a test database. `drop()` ends the database's connections `with (force)`: a pooled client
 * whose end the server had not yet seen gets "terminating connection due to administrator command"
 * (57P01) as an idle error, which pg-pool re-emits on the pool and, with no listener, fails the test
 * file. That one error is expected at teardown; any other idle error still fails it.
 */
export function testPool(db: TestDatabase, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: db.url, max });
  pool.on('error', (err: Error & { code?: string }) => {
    if (err.code !== '57P01') throw err;
  });
  return pool;
}

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set; run the tests through jest (global setup)');
  return url;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
