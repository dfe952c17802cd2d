import { describe, expect, it } from '@jest/globals';

import type { Orm } from '../orm.js';
import { GlossaryVersions } from './glossary-versions.js';

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

describe('GlossaryVersions', () => {
  it('reads the table ahead: a request in the last quarter of refreshMs does not wait for Postgres', async () => {
    const { orm, reads } = heldTable();
    let clock = 0;
    const versions = new GlossaryVersions(orm, 1000, () => clock);

    // The first request has no table yet: it waits for the read.
    const first = versions.cacheVersion('auto', 'es');
    expect(await settled(first)).toBe(false);
    reads[0]?.(1);
    await expect(first).resolves.toBe(1);

    clock = 500;
    await expect(versions.cacheVersion('auto', 'es')).resolves.toBe(1);
    expect(reads).toHaveLength(1);

    // Within the bound, but due soon: answered at once, the next read started.
    clock = 800;
    await expect(versions.cacheVersion('auto', 'es')).resolves.toBe(1);
    expect(reads).toHaveLength(2);
    reads[1]?.(2);
    await new Promise((resolve) => setImmediate(resolve));
    clock = 900;
    await expect(versions.cacheVersion('auto', 'es')).resolves.toBe(2);
  });

  it('makes a request wait for the table once it is older than refreshMs', async () => {
    const { orm, reads } = heldTable();
    let clock = 0;
    const versions = new GlossaryVersions(orm, 1000, () => clock);
    const first = versions.cacheVersion('auto', 'es');
    reads[0]?.(1);
    await first;

    clock = 5000;
    const late = versions.cacheVersion('auto', 'es');
    expect(await settled(late)).toBe(false);
    reads[1]?.(3);
    await expect(late).resolves.toBe(3);
  });

  it('gives a key the pair’s version, 0 for a pair without a glossary, the target’s sum for auto', async () => {
    const { orm, reads } = heldTable();
    const versions = new GlossaryVersions(orm, 1000, () => 0);
    const answers = Promise.all([
      versions.cacheVersion('en', 'es'),
      versions.cacheVersion('fr', 'es'),
      versions.cacheVersion('auto', 'es'),
      versions.cacheVersion('auto', 'de'),
      versions.ofPair('en', 'es'),
    ]);
    reads[0]?.(7);
    await expect(answers).resolves.toEqual([7, 0, 7, 0, { id: 'g1', name: 'terms', version: 7 }]);
    expect(reads).toHaveLength(1);
  });

  it('after expire(), waits for a read begun later, not for the one in flight', async () => {
    const { orm, reads } = heldTable();
    let clock = 0;
    const versions = new GlossaryVersions(orm, 1000, () => clock);
    const first = versions.cacheVersion('en', 'es');
    reads[0]?.(1);
    await first;
    // A read ahead starts (clock 800); the glossary is written while it is in flight.
    clock = 800;
    await expect(versions.cacheVersion('en', 'es')).resolves.toBe(1);
    clock = 850;
    versions.expire();
    const after = versions.cacheVersion('en', 'es');
    reads[1]?.(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await settled(after)).toBe(false);
    reads[2]?.(2);
    await expect(after).resolves.toBe(2);
  });
});
