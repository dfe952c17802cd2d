import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { splitTuning } from '@tp/runtime';

import { GATEWAY_TUNING } from '../../services/gateway/src/config.js';
import { NLI_TUNING } from '../../services/nli/src/config.js';
import { TRANSLATOR_TUNING } from '../../services/translator/src/config.js';
import { WORKER_TUNING } from '../../services/worker/src/config.js';
import { waitFor } from './wait.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The preload every service runs with (the OpenTelemetry instrumentations, libs/runtime/src/instrument.ts). */
const INSTRUMENT = pathToFileURL(`${REPO_ROOT}libs/runtime/dist/instrument.js`).href;

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: number | string;
  readonly url: string;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
}

/** A free TCP port on 127.0.0.1 (the OS picks it; we release it for the service to bind). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The named constants of each service, which a test shortens in-process rather than in the environment. */
const TUNING: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  gateway: GATEWAY_TUNING,
  translator: TRANSLATOR_TUNING,
  nli: NLI_TUNING,
  worker: WORKER_TUNING,
};

/** The entry of a service whose named constants a test shortens (tuned-service.mjs). */
const TUNED_ENTRY = `${REPO_ROOT}test/harness/tuned-service.mjs`;

/**
 * Runs a compiled service (services/<name>/dist/main.js, built by `npm test` before jest). As the
 * in-process fixtures do (splitTuning), `settings` names environment variables and named constants
 * alike: the service's own constants go to its config loader in-process (tuned-service.mjs, the same
 * start as main.js), and no constant goes into a process's environment. `port` is passed as PORT
 * verbatim, so tests can also hand over malformed values.
 */
export function runService(name: string, settings: NodeJS.ProcessEnv, port: number | string): ServiceProcess {
  const main = `${REPO_ROOT}services/${name}/dist/main.js`;
  if (!existsSync(main)) throw new Error(`${main} is missing: build first (npm test does)`);
  const own = TUNING[name] ?? {};
  const { tuning: every, env } = splitTuning(Object.assign({}, ...Object.values(TUNING)), settings);
  const tuning = Object.fromEntries(Object.entries(every).filter(([key]) => key in own));
  const entry = Object.keys(tuning).length === 0 ? [main] : [TUNED_ENTRY, name, JSON.stringify(tuning)];
  const args = ['--import', INSTRUMENT, '--disable-warning=TimeoutNegativeWarning', ...entry];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/**
 * Waits until a service answers /health. Generous by default: a service loads its modules for 5-10 s
 * on a busy two-core machine (most of it ESM loading), and other test files start processes too.
 * A service that does not come up fails with the end of its output.
 */
export async function waitForHealth(name: string, proc: ServiceProcess, timeoutMs = 90_000): Promise<void> {
  await waitFor(
    `${name} /health`,
    async () => (await fetch(`${proc.url}/health`).catch(() => null))?.ok === true,
    timeoutMs,
  ).catch((err: unknown) => {
    throw new Error(`${name} did not start: ${proc.output().slice(-2000)}`, { cause: err });
  });
}
