import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { DeadLetterIndex } from '@tp/pipeline';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { clearDeadLetters } from '@tp/test/harness/dead-letters';
import { REPO_ROOT } from '@tp/test/harness/processes';

const run = promisify(execFile);

/** What a test file of `npm run dlq` works with; filled in by its beforeAll. */
export interface DlqCliFixture {
  readonly db: TestDatabase;
  readonly orm: Orm;
  readonly index: DeadLetterIndex;
  /** Runs the CLI as `npm run dlq` does: compiled (`npm test` builds before jest), in a child process. */
  dlq(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Registers the hooks of a test file of `npm run dlq`: a database of the file's own, the dead-letter
 * index on it, and no dead letters before each test. Read the fixture's fields inside tests.
 */
export function useDlqCli(): DlqCliFixture {
  const fixture = {} as { -readonly [K in keyof DlqCliFixture]: DlqCliFixture[K] };
  beforeAll(async () => {
    fixture.db = await createTestDatabase();
    fixture.orm = await connectDatabase({ url: fixture.db.url, poolMax: 2 });
    fixture.index = new DeadLetterIndex(fixture.orm);
  });
  afterAll(async () => {
    await fixture.orm?.close(true);
    await fixture.db?.drop();
  });
  beforeEach(() => clearDeadLetters(fixture.orm));
  fixture.dlq = async (...args) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [`${REPO_ROOT}services/worker/dist/dlq/dlq.cli.js`, ...args],
        { env: { ...process.env, DATABASE_URL: fixture.db.url } },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  return fixture;
}
