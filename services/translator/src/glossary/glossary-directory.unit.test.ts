import { describe, expect, it } from '@jest/globals';
import type { Orm } from '@tp/db';

import { GlossaryDirectory } from './glossary-directory.js';

/**
 * An Orm whose connection answers the glossaries query when the test says: reads[i]() answers the
 * i-th read with one glossary (en -> es) of that version.
 */
function heldTable() {
  const reads: ((version: number) => void)[] = [];
  const orm = {
    em: {
      getConnection: () => ({
        execute: (sql: string) =>
          sql.startsWith('select id, name, source_lang')
            ? new Promise((resolve) =>
                reads.push((version) =>
                  resolve([
                    {
                      id: 'g1',
                      name: 'terms',
                      source_lang: 'en',
                      target_lang: 'es',
                      version: String(version),
                    },
                  ]),
                ),
              )
            : Promise.resolve([{ entries: [{ source: 'APy', target: 'APy' }], version: '1' }]),
      }),
    },
  } as unknown as Orm;
  return { orm, reads };
}

/** Whether the promise has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('GlossaryDirectory', () => {
  it('reads the table ahead: a request in the last quarter of refreshMs does not wait for Postgres', async () => {
    const { orm, reads } = heldTable();
    let clock = 0;
    const directory = new GlossaryDirectory(orm, 1000, () => clock);

    // The first request has no table yet: it waits for the read.
    const first = directory.targetVersion('es');
    expect(await settled(first)).toBe(false);
    reads[0]?.(1);
    await expect(first).resolves.toBe(1);

    clock = 500;
    await expect(directory.targetVersion('es')).resolves.toBe(1);
    expect(reads).toHaveLength(1);

    // Within the bound, but due soon: answered at once, the next read started.
    clock = 800;
    await expect(directory.targetVersion('es')).resolves.toBe(1);
    expect(reads).toHaveLength(2);
    reads[1]?.(2);
    await new Promise((resolve) => setImmediate(resolve));
    clock = 900;
    await expect(directory.targetVersion('es')).resolves.toBe(2);
  });

  it('makes a request wait for the table once it is older than refreshMs', async () => {
    const { orm, reads } = heldTable();
    let clock = 0;
    const directory = new GlossaryDirectory(orm, 1000, () => clock);
    const first = directory.targetVersion('es');
    reads[0]?.(1);
    await first;

    clock = 5000;
    const late = directory.targetVersion('es');
    expect(await settled(late)).toBe(false);
    reads[1]?.(3);
    await expect(late).resolves.toBe(3);
  });
});
