// npm run --silent keys -- create --role admin|client [--name N] [--modules a,b]   prints only the new key on stdout
// npm run --silent keys -- list [--json]
// npm run --silent keys -- revoke <id>
// Talks to Postgres directly (DATABASE_URL), so it also makes the first admin key of a fresh install.
import { API_KEY_ROLES, connectDatabase, type ApiKeyRole } from '@tp/db';
import { env, parseEnv, redactUrl } from '@tp/runtime';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';

import { ApiKeyStore } from '../auth/api-key.store.js';
import { keyModules } from '../auth/module-scope.js';

const { DATABASE_URL: url } = parseEnv(
  z.object({
    DATABASE_URL: env.url(
      ['postgres', 'postgresql'],
      'postgres://postgres@127.0.0.1:5432/translation_platform',
    ),
  }),
);

async function withStore<T>(work: (store: ApiKeyStore) => Promise<T>): Promise<T> {
  const orm = await connectDatabase({ url, poolMax: 1 }).catch((err: Error) => {
    throw new Error(`cannot connect to ${redactUrl(url)}: ${err.message}`);
  });
  try {
    return await work(new ApiKeyStore(orm));
  } finally {
    await orm.close(true);
  }
}

function role(value: string): ApiKeyRole {
  if (!(API_KEY_ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${API_KEY_ROLES.join(', ')}`);
  }
  return value as ApiKeyRole;
}

/** `shop,cms` -> the checked scope; the same rule as the admin API's `modules`. */
function modules(value: string): string[] {
  const parsed = keyModules.safeParse(value.split(','));
  if (!parsed.success) {
    throw new InvalidArgumentError(parsed.error.issues.map((issue) => issue.message).join('; '));
  }
  return parsed.data;
}

const program = new Command('keys').description('Manage gateway API keys').showHelpAfterError();

program
  .command('create')
  .description('create a key and print it (only the key, on stdout); it is never shown again')
  .requiredOption('--role <role>', `role: ${API_KEY_ROLES.join(' | ')}`, role)
  .option('--name <name>', 'a label for people (at most 100 characters)')
  .option('--modules <list>', 'client keys only: comma-separated modules the key may use', modules)
  .action(async (options: { role: ApiKeyRole; name?: string; modules?: string[] }) => {
    if (options.modules && options.role !== 'client') {
      throw new Error('--modules: only client keys can be scoped to modules');
    }
    const name = (options.name ?? `${options.role} key`).trim().slice(0, 100);
    const created = await withStore((store) => store.create(options.role, name, options.modules));
    process.stdout.write(`${created.key}\n`);
    const scope = created.modules ? ` for modules ${created.modules.join(',')}` : '';
    process.stderr.write(`created ${created.role} key ${created.id} (${created.prefix}...)${scope}\n`);
  });

program
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const keys = await withStore((store) => store.list());
    if (options.json) {
      process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      return;
    }
    for (const key of keys) {
      const state = key.revoked_at ? `revoked ${key.revoked_at}` : 'active';
      process.stdout.write(
        `${key.id}  ${key.role.padEnd(6)}  ${key.prefix}...  ${state}  last used ${key.last_used_at ?? 'never'}  modules ${key.modules?.join(',') ?? 'all'}  ${key.name}\n`,
      );
    }
  });

program
  .command('revoke')
  .description('revoke a key by id; takes effect on the next request')
  .argument('<id>', 'key id (from list)')
  .action(async (id: string) => {
    if (!z.uuid().safeParse(id).success) throw new Error(`not a key id: ${id}`);
    const revoked = await withStore((store) => store.revoke(id));
    process.stdout.write(`revoked ${revoked.id} at ${revoked.revoked_at}\n`);
  });

try {
  await program.parseAsync();
} catch (err) {
  process.stderr.write(`keys: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
