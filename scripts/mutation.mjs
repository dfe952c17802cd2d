// npm run mutation [-- <part> ...] [-- <stryker option> ...]: the mutation check of the pipeline's core,
// one Stryker run per part (stryker.config.mjs PARTS), each running only its own tests; with no part,
// every part in turn. Options starting with `--` go to Stryker, e.g.
//   npm run mutation -- spans --concurrency 1 --mutate services/translator/src/chain/span-scanner.ts
// The projection part's int test writes Postgres (DATABASE_URL, default the local server): its
// migrated template database is made here once, not per mutant, and dropped at the end, also when
// the run is stopped (SIGINT, SIGTERM: passed on to Stryker, then the database is dropped).
import { spawn } from 'node:child_process';
import { once } from 'node:events';

import pg from 'pg';

import { PARTS } from '../stryker.config.mjs';
import { prepareTemplateDatabase } from '../test/harness/global-setup.mjs';

const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('-'));
const names = firstOption < 0 ? args : args.slice(0, firstOption);
const options = firstOption < 0 ? [] : args.slice(firstOption);
const unknown = names.filter((name) => !(name in PARTS));
if (unknown.length > 0) {
  console.error(`unknown part ${unknown.join(', ')}; the parts: ${Object.keys(PARTS).join(', ')}`);
  process.exit(2);
}

let failed = false;
let stopped;
let stryker;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopped = signal;
    // Stryker runs in a process group of its own (detached): npx passes no signal on to it.
    if (stryker && stryker.exitCode === null && stryker.signalCode === null) {
      process.kill(-stryker.pid, signal);
    }
  });
}
for (const name of names.length > 0 ? names : Object.keys(PARTS)) {
  console.log(`\n[mutation] part ${name}: ${PARTS[name].mutate.join(' ')}`);
  const template = PARTS[name].database ? await templateDatabase() : undefined;
  try {
    if (stopped) break;
    stryker = spawn('npx', ['stryker', 'run', 'stryker.config.mjs', ...options], {
      stdio: 'inherit',
      env: { ...process.env, MUTATION_PART: name },
      detached: true,
    });
    const [status] = await once(stryker, 'exit');
    failed ||= status !== 0;
  } finally {
    await template?.drop();
  }
  if (stopped) break;
}
process.exit(stopped ? 130 : failed ? 1 : 0);

async function templateDatabase() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  await prepareTemplateDatabase(process.env.DATABASE_URL);
  const name = process.env.TP_TEST_TEMPLATE_DB;
  return {
    async drop() {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`).finally(() => client.end());
    },
  };
}
