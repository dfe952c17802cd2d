// npm run --silent keys -- create --role admin|client [--name N] [--modules a,b] [--requests-per-day N]
//     [--tokens-per-day N] [--tokens-per-month N] [--characters-per-month N]
//                                                                   prints only the new key on stdout
// npm run --silent keys -- limits <id> [--requests-per-day N|none] [--tokens-per-day N|none]
//     [--tokens-per-month N|none] [--characters-per-month N|none]   changes only the limits given
// npm run --silent keys -- list [--json]
// npm run --silent keys -- revoke <id>
// Talks to Postgres directly (DATABASE_URL), so it also makes the first admin key of a fresh install.
import { API_KEY_ROLES, connectDatabase, type ApiKeyRole } from '@tp/db';
import { env, parseEnv, redactUrl } from '@tp/runtime';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';

import { ApiKeyStore, type LimitsChange } from '../auth/api-key.store.js';
import { keyModules } from '../auth/module-scope.js';
import { MAX_CHARACTERS_LIMIT, MAX_REQUESTS_PER_DAY, MAX_TOKENS_LIMIT } from './keys.routes.js';

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

/** A limit: a whole number from 0 to `max`, or `none` to remove it. */
const limit =
  (max: number) =>
  (value: string): number | 'none' => {
    // Not null: commander would take it for an option without a value.
    if (value === 'none') return 'none';
    if (!/^\d{1,19}$/.test(value) || Number(value) > max) {
      throw new InvalidArgumentError(`must be a whole number from 0 to ${max}, or none`);
    }
    return Number(value);
  };

interface LimitOptions {
  readonly requestsPerDay?: number | 'none';
  readonly tokensPerDay?: number | 'none';
  readonly tokensPerMonth?: number | 'none';
  readonly charactersPerMonth?: number | 'none';
}

/** Only the options given; a limit left out keeps its value. */
const limitsOf = (options: LimitOptions): LimitsChange =>
  Object.fromEntries(
    (['requestsPerDay', 'tokensPerDay', 'tokensPerMonth', 'charactersPerMonth'] as const)
      .filter((name) => options[name] !== undefined)
      .map((name) => [name, options[name] === 'none' ? null : options[name]]),
  );

const withLimitOptions = (command: Command): Command =>
  command
    .option('--requests-per-day <n>', 'authenticated requests per UTC day', limit(MAX_REQUESTS_PER_DAY))
    .option('--tokens-per-day <n>', 'chat tokens per UTC day', limit(MAX_TOKENS_LIMIT))
    .option('--tokens-per-month <n>', 'chat tokens per UTC calendar month', limit(MAX_TOKENS_LIMIT))
    .option(
      '--characters-per-month <n>',
      'characters translated by the engines per UTC calendar month (cache hits are free)',
      limit(MAX_CHARACTERS_LIMIT),
    );

const budgets = (key: {
  requests_per_day: number | null;
  tokens_per_day: number | null;
  tokens_per_month: number | null;
  characters_per_month: number | null;
}) =>
  `requests/day ${key.requests_per_day ?? 'none'}, tokens/day ${key.tokens_per_day ?? 'none'}, tokens/month ${key.tokens_per_month ?? 'none'}, characters/month ${key.characters_per_month ?? 'none'}`;

/** `shop,cms` -> the checked scope; the same rule as the admin API's `modules`. */
function modules(value: string): string[] {
  const parsed = keyModules.safeParse(value.split(','));
  if (!parsed.success) {
    throw new InvalidArgumentError(parsed.error.issues.map((issue) => issue.message).join('; '));
  }
  return parsed.data;
}

const program = new Command('keys').description('Manage gateway API keys').showHelpAfterError();

withLimitOptions(
  program
    .command('create')
    .description('create a key and print it (only the key, on stdout); it is never shown again')
    .requiredOption('--role <role>', `role: ${API_KEY_ROLES.join(' | ')}`, role)
    .option('--name <name>', 'a label for people (at most 100 characters)')
    .option('--modules <list>', 'client keys only: comma-separated modules the key may use', modules),
).action(async (options: LimitOptions & { role: ApiKeyRole; name?: string; modules?: string[] }) => {
  if (options.modules && options.role !== 'client') {
    throw new Error('--modules: only client keys can be scoped to modules');
  }
  const name = (options.name ?? `${options.role} key`).trim().slice(0, 100);
  const created = await withStore((store) =>
    store.create(options.role, name, {
      limits: limitsOf(options),
      ...(options.modules ? { modules: options.modules } : {}),
    }),
  );
  process.stdout.write(`${created.key}\n`);
  const scope = created.modules ? ` for modules ${created.modules.join(',')}` : '';
  process.stderr.write(
    `created ${created.role} key ${created.id} (${created.prefix}...)${scope}; ${budgets(created)}\n`,
  );
});

withLimitOptions(
  program
    .command('limits')
    .description("change a key's budgets (none removes one); limits left out keep their value")
    .argument('<id>', 'key id (from list)'),
).action(async (id: string, options: LimitOptions) => {
  if (!z.uuid().safeParse(id).success) throw new Error(`not a key id: ${id}`);
  const changed = await withStore((store) => store.setLimits(id, limitsOf(options)));
  process.stdout.write(`${changed.id}: ${budgets(changed)}\n`);
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
        `${key.id}  ${key.role.padEnd(6)}  ${key.prefix}...  ${state}  last used ${key.last_used_at ?? 'never'}  modules ${key.modules?.join(',') ?? 'all'}  ${budgets(key)}  ${key.name}\n`,
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
