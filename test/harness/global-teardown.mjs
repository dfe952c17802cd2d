// Drops the template database and stops the broker (unless TP_TEST_KEEP_KAFKA=1) and the APy global
// setup started.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

import pg from 'pg';

import { apertiumScriptEnv, kafkaScriptEnv, REPO_ROOT } from './global-setup.mjs';

export default async function globalTeardown() {
  const template = process.env.TP_TEST_TEMPLATE_DB;
  if (template && process.env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop database if exists ${template} with (force)`).finally(() => client.end());
  }
  if (globalThis.kafkaContainer) await globalThis.kafkaContainer.stop();
  const apertiumPort = process.env.TP_TEST_STARTED_APERTIUM;
  if (apertiumPort) {
    const env = apertiumScriptEnv(apertiumPort);
    await promisify(execFile)('bash', [`${REPO_ROOT}infra/apertium/apertium.sh`, 'stop'], { env });
    await rm(env.APERTIUM_RUN_DIR, { recursive: true, force: true });
  }
  if (process.env.TP_TEST_STARTED_KAFKA === 'native' && process.env.TP_TEST_KEEP_KAFKA !== '1') {
    await promisify(execFile)('bash', [`${REPO_ROOT}infra/kafka/kafka.sh`, 'stop'], {
      env: kafkaScriptEnv(),
    });
  }
}
