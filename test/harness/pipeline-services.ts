import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { REPO_ROOT } from './processes.js';

const run = promisify(execFile);

export interface PipelineEnvOptions {
  readonly databaseUrl: string;
  readonly kafkaBrokers: string | undefined;
  readonly topicPrefix: string;
  readonly ports: { readonly gateway: number; readonly worker: number; readonly translator: number };
  /** The LibreTranslate double: the translator's only engine. */
  readonly libreTranslateUrl: string;
}

/**
 * The environment of gateway, worker and translator run as processes for an end-to-end test: wired to
 * each other and to the test's database, topics and Redis keys, the LibreTranslate double as the only
 * engine, no breaker holding the engine open, and a relay that polls every 50 ms.
 */
export function pipelineEnv(options: PipelineEnvOptions): NodeJS.ProcessEnv {
  const { ports, topicPrefix } = options;
  return {
    DATABASE_URL: options.databaseUrl,
    KAFKA_BROKERS: options.kafkaBrokers,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    REDIS_KEY_PREFIX: `${topicPrefix}:`,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
    LIBRETRANSLATE_URL: options.libreTranslateUrl,
    MODELS_DIR: '/nonexistent',
    BREAKER_THRESHOLD: '1000',
    OUTBOX_POLL_INTERVAL_MS: '50',
  };
}

/** An API key made with the gateway's keys CLI (built by `npm test`) in the given database. */
export async function createKeyWithCli(databaseUrl: string, role: 'admin' | 'client'): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [`${REPO_ROOT}services/gateway/dist/keys/keys.cli.js`, 'create', '--role', role, '--name', `e2e ${role}`],
    { env: { ...process.env, DATABASE_URL: databaseUrl } },
  );
  return stdout.trim();
}
