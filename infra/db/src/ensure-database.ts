import pg from 'pg';

/**
 * Creates the database named in `url` when it does not exist, connecting to the server's `postgres`
 * maintenance database. Returns true when it created it.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('the URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    await client.query(`create database ${pg.escapeIdentifier(name)}`);
    return true;
  } catch (err) {
    // Two setups racing: the other one created it first.
    if ((err as { code?: string }).code === '42P04') return false;
    throw err;
  } finally {
    await client.end();
  }
}
