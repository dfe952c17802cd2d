import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { connectDatabase, GlossaryDeletion, type Orm } from '@tp/db';
import { createLogger } from '@tp/runtime';
import { startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { waitFor } from '@tp/test/harness/wait';
import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';
import { createDeepLEngine } from '../engines/deepl/deepl.engine.js';
import { GlossaryDeletions, type GlossaryDeletionsOptions } from './glossary-deletions.js';

// Glossaries deleted in our admin API (rows of glossary_deletions, as the gateway writes them in the
// delete's transaction) are deleted at the DeepL double, every version, and nothing else is.
const KEY = 'deletions-key:fx';
const DELETED = '11111111-1111-4111-8111-111111111111';
const KEPT = '22222222-2222-4222-8222-222222222222';

let double: DeepLDouble;
let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  double = await startDeepLDouble({ authKey: KEY });
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
  await double?.close();
});

/** A glossary at DeepL, as an earlier run of this or another deployment left it. */
async function atDeepL(name: string): Promise<void> {
  const reply = await fetch(`${double.url}/v2/glossaries`, {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      source_lang: 'en',
      target_lang: 'de',
      entries: 'a\tb',
      entries_format: 'tsv',
    }),
  });
  expect(reply.status).toBe(201);
}

const deletedInOurApi = (id: string, agoMs = 3_600_000) =>
  orm.em.fork().insert(GlossaryDeletion, { glossaryId: id, deletedAt: new Date(Date.now() - agoMs) });

const names = () =>
  double
    .glossaries()
    .map((g) => g.name)
    .sort();
const rows = async () =>
  (await orm.em.fork().find(GlossaryDeletion, {}, { orderBy: { glossaryId: 'asc' } })).map(
    (row) => row.glossaryId,
  );

function sweeper(options: GlossaryDeletionsOptions = {}): GlossaryDeletions {
  const engine = createDeepLEngine({ authKey: KEY, baseUrl: double.url });
  if (!engine.removeDeletedGlossaries) throw new Error('the DeepL engine deletes no glossaries');
  return new GlossaryDeletions(orm, engine.removeDeletedGlossaries, createLogger('test', 'silent'), options);
}

describe('glossaries deleted in our API, at DeepL', () => {
  beforeEach(async () => {
    for (const glossary of double.glossaries()) {
      await fetch(`${double.url}/v2/glossaries/${glossary.id}`, {
        method: 'DELETE',
        headers: { authorization: `DeepL-Auth-Key ${KEY}` },
      });
    }
    double.reset();
    await orm.em.fork().nativeDelete(GlossaryDeletion, {});
  });

  it('deletes every version of a deleted glossary and nothing else, then forgets the deletion', async () => {
    await atDeepL(`tp ${DELETED}:1`);
    await atDeepL(`tp ${DELETED}:2`);
    await atDeepL(`tp ${KEPT}:5`);
    await atDeepL('tp 33333333-3333-4333-8333-333333333333:1'); // another deployment on the same key
    await atDeepL(`someone else's ${DELETED}:1`);
    await deletedInOurApi(DELETED);

    expect(await sweeper().sweep()).toBe(1);

    expect(names()).toEqual([
      `someone else's ${DELETED}:1`,
      `tp ${KEPT}:5`,
      'tp 33333333-3333-4333-8333-333333333333:1',
    ]);
    expect(await rows()).toEqual([]);
    expect(double.requests.filter((r) => r.method === 'DELETE')).toHaveLength(2);
  });

  it('keeps the deletion when DeepL refuses to delete, and deletes on the next sweep', async () => {
    await atDeepL(`tp ${DELETED}:1`);
    await deletedInOurApi(DELETED);
    double.fail(
      { type: 'respond', status: 503, body: { message: 'Service unavailable' } },
      { method: 'DELETE' },
    );
    const sweep = sweeper();

    expect(await sweep.sweep()).toBe(0);
    expect(names()).toEqual([`tp ${DELETED}:1`]);
    expect(await rows()).toEqual([DELETED]);

    expect(await sweep.sweep()).toBe(1);
    expect(names()).toEqual([]);
    expect(await rows()).toEqual([]);
  });

  it('keeps the deletion when DeepL does not list the account, deleting nothing', async () => {
    await atDeepL(`tp ${DELETED}:1`);
    await deletedInOurApi(DELETED);
    double.fail({ type: 'respond', status: 500, body: { message: 'Internal error' } }, { method: 'GET' });

    expect(await sweeper().sweep()).toBe(0);

    expect(names()).toEqual([`tp ${DELETED}:1`]);
    expect(await rows()).toEqual([DELETED]);
  });

  it('keeps a fresh deletion after deleting, so a copy a lagging replica makes then is deleted too', async () => {
    await atDeepL(`tp ${DELETED}:1`);
    await deletedInOurApi(DELETED, 0);
    const sweep = sweeper({ settleMs: 60_000 });

    expect(await sweep.sweep()).toBe(0);
    expect(names()).toEqual([]);
    expect(await rows()).toEqual([DELETED]);

    await atDeepL(`tp ${DELETED}:1`);
    await sweep.sweep();
    expect(names()).toEqual([]);
  });

  it('takes at most `batch` deletions a sweep, oldest first', async () => {
    const ids = ['a', 'b', 'c'].map((c) => `${c.repeat(8)}-0000-4000-8000-000000000000`);
    for (const [i, id] of ids.entries()) {
      await atDeepL(`tp ${id}:1`);
      await deletedInOurApi(id, (10 - i) * 60_000);
    }

    expect(await sweeper({ batch: 2 }).sweep()).toBe(2);

    expect(names()).toEqual([`tp ${ids[2]}:1`]);
    expect(await rows()).toEqual([ids[2]]);
  });
});

describe('the translator with DeepL', () => {
  let translator: TestTranslator;

  beforeAll(async () => {
    translator = await startTestTranslator({
      PRIMARY_ENGINE: 'deepl',
      PRIMARY_ENGINE_KEY: KEY,
      PRIMARY_ENGINE_URL: double.url,
      GLOSSARY_DELETIONS_SWEEP_MS: '20',
    });
  });
  afterAll(() => translator?.close());

  it('deletes at DeepL, on its own, a glossary deleted in our API', async () => {
    await atDeepL(`tp ${DELETED}:7`);
    await translator.orm.em
      .fork()
      .insert(GlossaryDeletion, { glossaryId: DELETED, deletedAt: new Date(Date.now() - 3_600_000) });

    await waitFor('the glossary deleted at DeepL', () => !names().includes(`tp ${DELETED}:7`));
    await waitFor(
      'the deletion forgotten',
      async () => (await translator.orm.em.fork().count(GlossaryDeletion, {})) === 0,
    );
  });
});
