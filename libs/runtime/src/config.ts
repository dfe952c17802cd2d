import { z } from 'zod';

/** A setting is wrong or unusable; the message names the environment variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`${setting}: ${problem}`);
  }
}

/**
 * Parses environment variables with a zod object whose keys are the variable names, and fails fast
 * with a ConfigError naming the first bad variable (and every other one in `problems`).
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const setting = String(issue.path[0] ?? '(environment)');
    const raw = env[setting];
    const got = raw === undefined ? 'it is not set' : described(setting, raw);
    return new ConfigError(setting, `${issue.message} (${got})`);
  });
  const first = issues[0] as ConfigError;
  if (issues.length > 1) {
    const others = issues.slice(1).map((i) => i.setting);
    throw new ConfigError(first.setting, `${first.problem}; also invalid: ${others.join(', ')}`);
  }
  throw first;
}

/**
 * Values no deployment has needed to change: named constants (each with its reason where it is
 * declared), not environment settings, kept in a service's config object so a test can shorten one
 * in-process. `splitTuning` takes a test's string settings apart: the tuning values (as numbers) and
 * the environment settings.
 */
export function splitTuning<T extends Readonly<Record<string, number>>>(
  tuning: T,
  settings: Readonly<Record<string, string | undefined>>,
): { readonly tuning: Partial<Record<keyof T, number>>; readonly env: Record<string, string | undefined> } {
  const picked: Partial<Record<keyof T, number>> = {};
  const rest: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key in tuning && value !== undefined) picked[key as keyof T] = Number(value);
    else rest[key] = value;
  }
  return { tuning: picked, env: rest };
}

/** A service's config: its environment settings, then its named constants (overridable in-process). */
export type ConfigOf<S extends z.ZodObject, T extends Readonly<Record<string, number>>> = z.infer<S> & {
  -readonly [K in keyof T]: number;
};

/**
 * The loader of a service's config: `schema` parsed from the environment, then the `tuning` constants.
 * An environment variable named after a constant is refused (ConfigError): set there it would change
 * nothing, and a deployment that still sets one learns at start that its value is not used.
 */
export function configLoader<S extends z.ZodObject, T extends Readonly<Record<string, number>>>(
  schema: S,
  tuning: T,
): (source?: NodeJS.ProcessEnv, overrides?: Partial<Record<keyof T, number>>) => ConfigOf<S, T> {
  return (source = process.env, overrides = {}) => {
    const constant = Object.keys(tuning).find((name) => source[name] !== undefined);
    if (constant !== undefined) {
      throw new ConfigError(
        constant,
        `is a named constant (${tuning[constant]}), not a setting: remove it from the environment`,
      );
    }
    return { ...parseEnv(schema, source), ...tuning, ...overrides };
  };
}

/** Names of settings that hold secrets: their values are never repeated in an error. */
const SECRET_SETTING = ['KEY', 'SECRET', 'TOKEN', 'PASSWORD', 'CREDENTIAL'];

/** What an error says about a bad value: the value (credentials in a URL redacted), or only its length. */
function described(setting: string, raw: string): string {
  if (SECRET_SETTING.some((word) => setting.toUpperCase().includes(word))) {
    return `got a value of ${raw.length} characters, not shown`;
  }
  return `got ${JSON.stringify(redactUrl(raw))}`;
}

/** Reusable field schemas; each message says what a good value looks like. */
export const env = {
  port: (fallback: number) =>
    z.coerce
      .number({ error: 'must be a TCP port number' })
      .int({ error: 'must be an integer from 1 to 65535' })
      .min(1, { error: 'must be an integer from 1 to 65535' })
      .max(65535, { error: 'must be an integer from 1 to 65535' })
      .default(fallback),
  url: (protocols: readonly string[], fallback: string) =>
    z
      .string()
      .default(fallback)
      .refine(
        (value) => {
          try {
            return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        },
        { error: `must be a URL with scheme ${protocols.join(' or ')}` },
      ),
  brokers: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean),
      )
      // not user text: a configuration value
      .refine((list) => list.length > 0 && list.every((b) => /^[^\s:]+:\d{1,5}$/.test(b)), {
        error: 'must be a comma-separated list of host:port',
      }),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  positiveInt: (fallback: number) =>
    z.coerce
      .number({ error: 'must be a number' })
      .int()
      .positive({ error: 'must be a positive integer' })
      .default(fallback),
  nonNegativeInt: (fallback: number) =>
    z.coerce
      .number({ error: 'must be a number' })
      .int()
      .min(0, { error: 'must be 0 or a positive integer' })
      .default(fallback),
  string: (fallback: string) => z.string().default(fallback),
  /** A comma-separated list; blanks dropped. */
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  /** A JSON value checked against `schema`; the message says what is wrong where. */
  json: <T extends z.ZodType>(schema: T, fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value, ctx): z.output<T> => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be valid JSON' });
          return z.NEVER;
        }
        const result = schema.safeParse(parsed);
        if (result.success) return result.data;
        const issue = result.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
        ctx.addIssue({ code: 'custom', message: `${issue?.message ?? 'is invalid'}${where}` });
        return z.NEVER;
      }),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
};

/** Hides the password in a connection URL so it can be printed. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}
