import { connectDatabase, ContentTranslation, type Orm } from '@tp/db';

import { createTestDatabase, testPool, type TestDatabase } from './databases.js';
import { createKeyWithCli, pipelineEnv } from './pipeline-services.js';
import { freePort, runService, type ServiceProcess } from './processes.js';
import { waitFor } from './wait.js';
import type pg from 'pg';

export interface StackOptions {
  readonly kafkaBrokers: string;
  readonly topicPrefix: string;
  readonly libreTranslateUrl: string;
  /** Replicas of the worker and of the translator (one consumer group per kind, shared). */
  readonly workers: number;
  readonly translators: number;
  /** Settings for every process on top of pipelineEnv's. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The content pipeline as processes, for end-to-end tests: one gateway and several workers and
 * translators on their own ports, wired to one database (of the test's own), topics, Redis prefix and
 * the LibreTranslate double. Each replica of a kind joins the same consumer group.
 */
export interface PipelineStack {
  readonly db: TestDatabase;
  readonly sql: pg.Pool;
  /** The database through MikroORM's entities, for reading what the services stored. */
  readonly orm: Orm;
  readonly processes: ReadonlyMap<string, ServiceProcess>;
  readonly adminKey: string;
  readonly clientKey: string;
  call(
    method: string,
    path: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number; body: StackAnswer }>;
  /** Every stored translation of `type` as `id field lang version text`, sorted. */
  translations(type: string): Promise<string[]>;
  /** The last lines each process printed, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
}

export interface StackAnswer {
  readonly code?: number;
  readonly error?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export async function startPipelineStack(options: StackOptions): Promise<PipelineStack> {
  const db = await createTestDatabase();
  const sql = testPool(db, 3);
  const orm = await connectDatabase({ url: db.url, poolMax: 2 });
  const names = [
    'gateway',
    ...Array.from({ length: options.workers }, (_, i) => `worker-${i + 1}`),
    ...Array.from({ length: options.translators }, (_, i) => `translator-${i + 1}`),
  ];
  const ports = new Map<string, number>();
  for (const name of names) ports.set(name, await freePort());
  const env = stackEnv(options, db.url, ports);
  const processes = new Map<string, ServiceProcess>();
  for (const name of names) {
    processes.set(name, runService(name.replace(/-\d+$/, ''), env, ports.get(name)!));
  }
  const stop = async () => {
    for (const proc of processes.values()) proc.child.kill('SIGKILL');
    await Promise.all([...processes.values()].map((proc) => proc.exited));
    await sql.end();
    await orm.close(true);
    await db.drop();
  };
  await waitUntilHealthy(processes, stop);
  const [adminKey, clientKey] = await Promise.all([
    createKeyWithCli(db.url, 'admin'),
    createKeyWithCli(db.url, 'client'),
  ]);
  const gatewayUrl = processes.get('gateway')!.url;
  return {
    db,
    sql,
    orm,
    processes,
    adminKey,
    clientKey,
    call: (method, path, key, body) => callGateway(gatewayUrl, method, path, key, body),
    translations: (type) => storedTranslations(orm, type),
    logs: () =>
      [...processes]
        .map(([name, proc]) => `--- ${name} (exit ${proc.child.exitCode}) ---\n${proc.output().slice(-3000)}`)
        .join('\n'),
    stop,
  };
}

/** Every process's settings: pipelineEnv's for this stack, then the test's own. */
function stackEnv(
  options: StackOptions,
  databaseUrl: string,
  ports: ReadonlyMap<string, number>,
): NodeJS.ProcessEnv {
  return {
    ...pipelineEnv({
      databaseUrl,
      kafkaBrokers: options.kafkaBrokers,
      topicPrefix: options.topicPrefix,
      ports: {
        gateway: ports.get('gateway')!,
        worker: ports.get('worker-1')!,
        translator: ports.get('translator-1')!,
      },
      libreTranslateUrl: options.libreTranslateUrl,
    }),
    // Five processes start at once on a busy machine beside other test files: connecting may be slow.
    CONNECT_TIMEOUT_MS: '30000',
    ...options.env,
  };
}

/** Waits for each process's /health; on failure stops the stack and throws with every process's output. */
async function waitUntilHealthy(
  processes: ReadonlyMap<string, ServiceProcess>,
  stop: () => Promise<void>,
): Promise<void> {
  try {
    for (const proc of processes.values()) {
      await waitFor(
        `${proc.url} /health`,
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}`);
          return (await fetch(`${proc.url}/health`).catch(() => null))?.ok === true;
        },
        120_000,
      );
    }
  } catch (err) {
    const logs = [...processes].map(([name, p]) => `--- ${name}\n${p.output().slice(-2000)}`).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
  }
}

async function callGateway(
  gatewayUrl: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: StackAnswer }> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as StackAnswer };
}

async function storedTranslations(orm: Orm, type: string): Promise<string[]> {
  const rows = await orm.em.fork().find(ContentTranslation, { entityType: type });
  return rows
    .map((r) => `${r.entityId} ${r.field} ${r.targetLang} ${r.sourceVersion} ${r.translatedText}`)
    .sort();
}

/**
 * Records in `translation_regressions` every update of content_translations that would take a row
 * back to an older source version: the observation behind "no row ever goes back".
 */
export async function watchForRegressions(sql: pg.Pool): Promise<() => Promise<string[]>> {
  await sql.query(`
    create table translation_regressions (entity_id text, field text, lang text, old_version bigint, new_version bigint);
    create function record_translation_regression() returns trigger language plpgsql as $$
    begin
      if new.source_version < old.source_version then
        insert into translation_regressions values (old.entity_id, old.field, old.target_lang, old.source_version, new.source_version);
      end if;
      return new;
    end $$;
    create trigger translation_regression before update on content_translations
      for each row execute function record_translation_regression();`);
  return async () =>
    (
      await sql.query<{ row: string }>(
        `select entity_id || ' ' || field || ' ' || lang || ' ' || old_version || '->' || new_version as row
         from translation_regressions`,
      )
    ).rows.map((r) => r.row);
}
