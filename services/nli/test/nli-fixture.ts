import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildTinyNliModel, type TinyNliOptions } from '@tp/models';
import { splitTuning } from '@tp/runtime';

import { loadNliConfig, NLI_TUNING, type NliConfig } from '../src/config.js';
import { startNli } from '../src/nli.js';
import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { waitFor } from '@tp/test/harness/wait';

export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

export interface TestNli {
  readonly url: string;
  readonly config: NliConfig;
  readonly service: Awaited<ReturnType<typeof startNli>>;
  /** The database, for a second process on the same configuration row. */
  readonly databaseUrl: string;
  /** POST with a JSON body; a string is sent as it is (for malformed bodies). */
  post<T = Record<string, unknown>>(path: string, body: unknown): Promise<Reply<T>>;
  put<T = Record<string, unknown>>(path: string, body: unknown): Promise<Reply<T>>;
  get<T = Record<string, unknown>>(path: string): Promise<Reply<T>>;
  close(): Promise<void>;
}

/** The tiny keyword NLI model (docs/models.md), built into a temporary `tiny-nli` folder. */
export async function tinyNliModel(options: TinyNliOptions = {}) {
  const root = await mkdtemp(join(tmpdir(), 'tp-nli-models-'));
  const dir = join(root, 'tiny-nli');
  await buildTinyNliModel(dir, options);
  return { dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * The real nli service, in-process on an ephemeral port, with its own database (or `DATABASE_URL`
 * from `settings`, to share one) and Redis key prefix. No model unless `settings` names one.
 */
export async function startTestNli(settings: Record<string, string> = {}): Promise<TestNli> {
  const db: TestDatabase | undefined = settings.DATABASE_URL ? undefined : await createTestDatabase();
  const databaseUrl = settings.DATABASE_URL ?? (db as TestDatabase).url;
  // Named constants a test shortens (NLI_TUNING) go in-process; the rest is the environment.
  const { tuning, env } = splitTuning(NLI_TUNING, settings);
  const config: NliConfig = {
    ...loadNliConfig(
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL: process.env.REDIS_URL,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        REDIS_KEY_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
        NLI_MODEL_DIR: '',
        ...env,
      },
      tuning,
    ),
    PORT: 0,
  };
  const service = await startNli(config).catch(async (err: unknown) => {
    await db?.drop();
    throw err;
  });
  // Redis connects in the background; cache tests need it up (unless a test points it elsewhere).
  if (settings.REDIS_URL === undefined) {
    await waitFor('redis ready', () => service.context.deps.redis?.isReady === true);
  }
  const url = `http://127.0.0.1:${service.port}`;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<Reply<T>> => {
    const res = await fetch(`${url}${path}`, {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  return {
    url,
    config,
    service,
    databaseUrl,
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    get: (path) => call('GET', path),
    async close() {
      await service.stop();
      await db?.drop();
    },
  };
}

/** The nli service on a fresh tiny model (explicitly allowed); close() also removes the model. */
export async function startNliWithTinyModel(settings: Record<string, string> = {}): Promise<TestNli> {
  const tiny = await tinyNliModel();
  const nli = await startTestNli({
    NLI_MODEL_DIR: tiny.dir,
    ALLOW_TEST_MODELS: 'true',
    ...settings,
  }).catch(async (err: unknown) => {
    await tiny.remove();
    throw err;
  });
  return {
    ...nli,
    async close() {
      await nli.close();
      await tiny.remove();
    },
  };
}
