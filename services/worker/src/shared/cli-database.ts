import { connectDatabase, type Orm } from '@tp/db';
import { env, parseEnv, redactUrl } from '@tp/runtime';
import { z } from 'zod';

/**
 * Runs `work` on a connection to DATABASE_URL (the local database by default), closed after: the
 * worker's command-line tools talk to Postgres directly.
 */
export async function withOrm<T>(work: (orm: Orm) => Promise<T>): Promise<T> {
  const { DATABASE_URL: url } = parseEnv(
    z.object({
      DATABASE_URL: env.url(
        ['postgres', 'postgresql'],
        'postgres://postgres@127.0.0.1:5432/translation_platform',
      ),
    }),
  );
  const orm = await connectDatabase({ url, poolMax: 2 }).catch((err: Error) => {
    throw new Error(`cannot connect to ${redactUrl(url)}: ${err.message}`);
  });
  try {
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}
