import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

import { freePort, REPO_ROOT } from './processes.js';

const run = promisify(execFile);

/** An APy to test against, and how to let it go (a no-op for the shared one). */
export interface ServingApertium {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * An APy that serves the Apertium direction `langpair` (`spa|cat`): the tests' shared APy
 * (APERTIUM_URL) when it lists it, otherwise one of this file's own, started by
 * infra/apertium/apertium.sh with `packages` (Debian package suffixes such as `spa-cat`) installed.
 * APy reads its pairs when it starts, so a shared APy started before a pair was installed lacks it.
 */
export async function apertiumServing(langpair: string, packages: string): Promise<ServingApertium> {
  const shared = process.env.APERTIUM_URL;
  if (shared && (await lists(shared, langpair))) return { url: shared, close: async () => undefined };
  const port = await freePort();
  const runDir = `${REPO_ROOT}.run/apertium-${port}`;
  const env = {
    ...process.env,
    APERTIUM_PAIRS: packages,
    APERTIUM_PORT: String(port),
    APERTIUM_RUN_DIR: runDir,
  };
  const script = `${REPO_ROOT}infra/apertium/apertium.sh`;
  await run('bash', [script, 'start'], { env });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await run('bash', [script, 'stop'], { env });
      await rm(runDir, { recursive: true, force: true });
    },
  };
}

async function lists(url: string, langpair: string): Promise<boolean> {
  const reply = (await (await fetch(`${url}/listPairs`)).json()) as {
    responseData: { sourceLanguage: string; targetLanguage: string }[];
  };
  return reply.responseData.some(
    ({ sourceLanguage, targetLanguage }) => `${sourceLanguage}|${targetLanguage}` === langpair,
  );
}
