import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectDatabase,
  ContentTranslation,
  TranslationConfig,
  unconnectedDatabase,
  type Orm,
} from '@tp/db';
import {
  lockEntityTranslations,
  PermanentError,
  recordDeletion,
  upsertTranslations,
  type TranslationWrite,
} from '@tp/pipeline';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { editorTranslation } from '@tp/test/harness/translation-edits';
import { TranslationWriter } from './translation-writer.js';
import type { TranslationRow } from './translation-row.js';

// The one upsert of content_translations (libs/pipeline content-store/translation-upsert.ts) on a real
// Postgres, without Kafka, through the projection's writer and as an editor writes: each rule of the
// version guard, of machine and human rows and of the deletion tombstone, and the batch's per-row
// outcomes. Fast enough to be the projection's test in the mutation check (docs/testing.md).
let db: TestDatabase;
let orm: Orm;
let writer: TranslationWriter;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  writer = new TranslationWriter(orm);
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

/** A result for `entityId`'s name in English, of source version `sourceVersion`, requested at 1000 + version. */
function row(entityId: string, sourceVersion: number, over: Partial<TranslationRow> = {}): TranslationRow {
  return {
    entityType: 'vendor',
    entityId,
    field: 'name',
    targetLang: 'en',
    sourceLang: 'zh-CN',
    translatedText: `Hello v${sourceVersion}`,
    sourceHash: 'a'.repeat(64),
    sourceVersion,
    requestedAt: 1_000 + sourceVersion,
    engine: 'offline',
    truncated: false,
    fallback: false,
    lastEventId: randomUUID(),
    ...over,
  };
}

/** The stored rows of an entity, as the columns the writer sets. */
async function stored(entityId: string) {
  const rows = await orm.em
    .fork()
    .find(ContentTranslation, { entityId }, { orderBy: { field: 'asc', targetLang: 'asc' } });
  return rows.map((r) => ({
    field: r.field,
    target_lang: r.targetLang,
    source_lang: r.sourceLang,
    translated_text: r.translatedText,
    source_hash: r.sourceHash,
    source_version: r.sourceVersion,
    requested_at: r.requestedAt,
    engine: r.engine,
    truncated: r.truncated,
    last_event_id: r.lastEventId,
    origin: r.origin,
    written_by: r.writtenBy ?? null,
    stale: r.stale,
  }));
}

const texts = async (entityId: string) => (await stored(entityId)).map((r) => r['translated_text']);

const edit = editorTranslation;

/** Writes editors' translations, as the gateway does; answers the entity ids written. */
const writeEdits = async (...edits: TranslationWrite[]) =>
  (await upsertTranslations(orm.em.fork(), edits)).map((k) => k.entity_id);

/** A stale human translation of `sourceVersion` (an editor's, whose source text changed since). */
const human = async (entityId: string, sourceVersion: number, targetLang = 'en') => {
  await writeEdits(edit(entityId, sourceVersion, { targetLang }));
  await orm.em.fork().nativeUpdate(ContentTranslation, { entityId, targetLang }, { stale: true });
};

const humanOnly = (languages: string[]) =>
  orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { humanOnlyLanguages: languages });

const deleted = (entityId: string, version: number) =>
  recordDeletion(orm.em.fork(), {
    entityType: 'vendor',
    entityId,
    module: 'vendors',
    deletedVersion: version,
  });

describe('TranslationWriter: the version guard', () => {
  it('inserts a new row with every column of the result, as a machine row', async () => {
    const result = row('w-new', 3, { truncated: true, sourceLang: 'auto', field: 'title', targetLang: 'fr' });

    await expect(writer.write(result)).resolves.toBe('written');

    expect(await stored('w-new')).toEqual([
      {
        field: 'title',
        target_lang: 'fr',
        source_lang: 'auto',
        translated_text: 'Hello v3',
        source_hash: 'a'.repeat(64),
        source_version: 3,
        requested_at: 1_003,
        engine: 'offline',
        truncated: true,
        last_event_id: result.lastEventId,
        origin: 'machine',
        written_by: null,
        stale: false,
      },
    ]);
  });

  it('replaces every column with a newer version, and ignores an older one arriving after it', async () => {
    await writer.write(row('w-newer', 1, { truncated: true }));
    const newer = row('w-newer', 2, { sourceLang: 'ja', sourceHash: 'b'.repeat(64), engine: 'deepl' });

    await expect(writer.write(newer)).resolves.toBe('written');
    await expect(writer.write(row('w-newer', 1, { requestedAt: 9_999 }))).resolves.toBe('ignored');

    expect(await stored('w-newer')).toEqual([
      expect.objectContaining({
        source_lang: 'ja',
        translated_text: 'Hello v2',
        source_hash: 'b'.repeat(64),
        source_version: 2,
        requested_at: 1_002,
        engine: 'deepl',
        truncated: false,
        last_event_id: newer.lastEventId,
      }),
    ]);
  });

  it('of the same version, takes a later request (a retranslation) and ignores an earlier one or the same event again', async () => {
    const first = row('w-same', 1);
    await writer.write(first);

    await expect(writer.write(first)).resolves.toBe('ignored');
    await expect(
      writer.write(row('w-same', 1, { requestedAt: 1_000, translatedText: 'early' })),
    ).resolves.toBe('ignored');
    await expect(
      writer.write(row('w-same', 1, { requestedAt: 1_002, translatedText: 'again' })),
    ).resolves.toBe('written');

    expect(await texts('w-same')).toEqual(['again']);
  });

  it('keeps rows of other fields and languages of the entity apart', async () => {
    await writer.write(row('w-keys', 1));
    await writer.write(row('w-keys', 1, { targetLang: 'de', translatedText: 'Hallo' }));
    await writer.write(row('w-keys', 1, { field: 'about', translatedText: 'About' }));
    await writer.write(row('w-keys', 1, { entityType: 'product', translatedText: 'Product' }));

    expect(await texts('w-keys')).toEqual(['About', 'Hallo', 'Hello v1', 'Product']);
  });
});

describe('TranslationWriter: human translations and truncated results (MACHINE_MAY_REPLACE)', () => {
  it('never replaces a human translation with a machine result of the same version, even a later request', async () => {
    await human('w-human', 2);

    await expect(writer.write(row('w-human', 2, { requestedAt: Date.now() }))).resolves.toBe('ignored');

    expect(await stored('w-human')).toEqual([
      expect.objectContaining({ translated_text: 'By hand', origin: 'human', stale: true }),
    ]);
  });

  it('replaces a human translation with a machine one of a newer version, which is no longer human or stale', async () => {
    await human('w-stale', 1);

    await expect(writer.write(row('w-stale', 2))).resolves.toBe('written');

    expect(await stored('w-stale')).toEqual([
      expect.objectContaining({
        translated_text: 'Hello v2',
        origin: 'machine',
        written_by: null,
        stale: false,
      }),
    ]);
  });

  it('never replaces a human translation in a human-only language, whatever the version; other languages still are', async () => {
    await human('w-only', 1, 'en');
    await human('w-only', 1, 'de');
    await humanOnly(['fr', 'en']);
    try {
      await expect(writer.write(row('w-only', 5))).resolves.toBe('ignored');
      await expect(writer.write(row('w-only', 5, { targetLang: 'de' }))).resolves.toBe('written');
      await expect(writer.write(row('w-only-machine', 1))).resolves.toBe('written');
      await expect(writer.write(row('w-only-machine', 2))).resolves.toBe('written');
    } finally {
      await humanOnly([]);
    }
    expect(await texts('w-only')).toEqual(['Hello v5', 'By hand']);
    expect(await texts('w-only-machine')).toEqual(['Hello v2']);
  });

  it('of the same version, never lets a truncated result replace a whole one; a whole one replaces a truncated one', async () => {
    await writer.write(row('w-whole', 1));
    await expect(writer.write(row('w-whole', 1, { requestedAt: 2_000, truncated: true }))).resolves.toBe(
      'ignored',
    );
    await expect(writer.write(row('w-whole', 2, { truncated: true }))).resolves.toBe('written');
    await expect(
      writer.write(row('w-whole', 2, { requestedAt: 2_000, truncated: true, translatedText: 'cut again' })),
    ).resolves.toBe('written');
    await expect(
      writer.write(row('w-whole', 2, { requestedAt: 3_000, translatedText: 'whole' })),
    ).resolves.toBe('written');

    expect(await stored('w-whole')).toEqual([
      expect.objectContaining({ translated_text: 'whole', truncated: false }),
    ]);
  });
});

describe('TranslationWriter: fallback results (MACHINE_MAY_REPLACE)', () => {
  it('of the same version, ranks a fallback result between a whole one and a truncated one', async () => {
    await writer.write(row('w-rank', 1));
    await expect(
      writer.write(row('w-rank', 1, { requestedAt: 2_000, fallback: true, translatedText: 'weak' })),
    ).resolves.toBe('ignored');

    await writer.write(row('w-rank-cut', 1, { truncated: true, translatedText: 'cut' }));
    await expect(
      writer.write(row('w-rank-cut', 1, { requestedAt: 2_000, fallback: true, translatedText: 'weak' })),
    ).resolves.toBe('written');
    await expect(
      writer.write(
        row('w-rank-cut', 1, { requestedAt: 3_000, truncated: true, translatedText: 'cut again' }),
      ),
    ).resolves.toBe('ignored');
    await expect(
      writer.write(row('w-rank-cut', 1, { requestedAt: 4_000, translatedText: 'whole' })),
    ).resolves.toBe('written');

    expect([await texts('w-rank'), await texts('w-rank-cut')]).toEqual([['Hello v1'], ['whole']]);
  });
});

describe('TranslationWriter: deletions', () => {
  it('writes nothing for a result of the version the entity was deleted at, or older; a newer version is written', async () => {
    await deleted('w-deleted', 3);

    await expect(writer.write(row('w-deleted', 2))).resolves.toBe('ignored');
    await expect(writer.write(row('w-deleted', 3))).resolves.toBe('ignored');
    expect(await stored('w-deleted')).toEqual([]);

    await expect(writer.write(row('w-deleted', 4))).resolves.toBe('written');
    expect(await texts('w-deleted')).toEqual(['Hello v4']);
  });

  it('writes free text while its entity lock is held: no deletion takes that lock, so the write skips it', async () => {
    const free = row('w-free', 0, { entityType: 'text', field: 'text' });
    // Held by another transaction until the write is done: a write that took the shared lock would
    // wait for this one for ever.
    const outcome = await orm.em.fork().transactional(async (em) => {
      await lockEntityTranslations(em, free);
      return writer.write(free);
    });

    expect(outcome).toBe('written');
    expect(await texts('w-free')).toEqual(['Hello v0']);
  });

  it('applies a tombstone to its own entity only', async () => {
    await deleted('w-tomb', 9);

    await expect(writer.write(row('w-tomb-other', 1))).resolves.toBe('written');
    await expect(writer.write(row('w-tomb', 1, { entityType: 'product' }))).resolves.toBe('written');
  });
});

describe('editors write through the same upsert', () => {
  it('replaces a machine translation of the same version, and is human, written by the key, not stale', async () => {
    await writer.write(row('h-same', 2, { requestedAt: Date.now() + 60_000 }));
    const mine = edit('h-same', 2);

    expect(await writeEdits(mine)).toEqual(['h-same']);

    expect(await stored('h-same')).toEqual([
      expect.objectContaining({
        translated_text: 'By hand',
        origin: 'human',
        written_by: mine.writtenBy,
        stale: false,
        engine: 'human',
        truncated: false,
      }),
    ]);
  });

  it('replaces a stale human translation or one of an older version, and another edit of its version', async () => {
    await human('h-again', 1);
    expect(await writeEdits(edit('h-again', 2, { translatedText: 'v2 by hand' }))).toEqual(['h-again']);
    expect(await writeEdits(edit('h-again', 2, { translatedText: 'v2 again' }))).toEqual(['h-again']);

    expect(await stored('h-again')).toEqual([
      expect.objectContaining({ translated_text: 'v2 again', source_version: 2, stale: false }),
    ]);
  });

  it('never overwrites a translation of a newer source version', async () => {
    await writer.write(row('h-older', 3));

    expect(await writeEdits(edit('h-older', 2))).toEqual([]);

    expect(await texts('h-older')).toEqual(['Hello v3']);
  });

  it('writes nothing for an entity deleted at its version or later', async () => {
    await deleted('h-deleted', 4);

    expect(await writeEdits(edit('h-deleted', 4), edit('h-deleted', 3, { field: 'about' }))).toEqual([]);

    expect(await stored('h-deleted')).toEqual([]);
  });
});

describe('TranslationWriter: batches', () => {
  /** Writes `rows` as one batch: the first write runs alone, the rest wait for it and go together. */
  async function batch(first: TranslationRow, rows: TranslationRow[]) {
    const outcomes = [first, ...rows].map((r) => writer.write(r).catch((error: unknown) => error));
    return (await Promise.all(outcomes)).slice(1);
  }

  it('writes only the newest result of a key in a batch, whatever their order, and says which', async () => {
    const outcomes = await batch(row('w-batch-0', 1), [
      row('w-batch', 2),
      row('w-batch', 3, { requestedAt: 500 }),
      row('w-batch', 1, { requestedAt: 9_000 }),
      row('w-batch', 3, { requestedAt: 400 }),
      row('w-batch-b', 1),
    ]);

    expect(outcomes).toEqual(['ignored', 'written', 'ignored', 'ignored', 'written']);
    expect(await stored('w-batch')).toEqual([
      expect.objectContaining({ source_version: 3, requested_at: 500 }),
    ]);
    expect(await texts('w-batch-b')).toEqual(['Hello v1']);
  });

  it('takes the later of two results of the same version and request time in a batch', async () => {
    const outcomes = await batch(row('w-tie-0', 1), [
      row('w-tie', 1, { translatedText: 'first' }),
      row('w-tie', 1, { translatedText: 'second' }),
    ]);

    expect(outcomes).toEqual(['ignored', 'written']);
    expect(await texts('w-tie')).toEqual(['second']);
  });

  it('in a batch of one version, keeps the strongest result: a later weaker one does not displace it', async () => {
    const outcomes = await batch(row('w-strong-0', 1), [
      row('w-strong', 1, { translatedText: 'whole' }),
      row('w-strong', 1, { requestedAt: 2_000, truncated: true, translatedText: 'cut' }),
      row('w-strong', 1, { requestedAt: 3_000, fallback: true, translatedText: 'weak' }),
      row('w-strong-b', 1, { fallback: true, translatedText: 'weak' }),
      row('w-strong-b', 1, { requestedAt: 2_000, truncated: true, translatedText: 'cut' }),
    ]);

    expect(outcomes).toEqual(['written', 'ignored', 'ignored', 'written', 'ignored']);
    expect([await texts('w-strong'), await texts('w-strong-b')]).toEqual([['whole'], ['weak']]);
  });

  it('in a batch, lets a newer source version win even when it is weaker than an older one', async () => {
    const outcomes = await batch(row('w-weak-newer-0', 1), [
      row('w-weak-newer', 1, { translatedText: 'whole v1' }),
      row('w-weak-newer', 2, { truncated: true, translatedText: 'cut v2' }),
    ]);

    expect(outcomes).toEqual(['ignored', 'written']);
    expect(await texts('w-weak-newer')).toEqual(['cut v2']);
  });

  it('fails only the row the database can never take (RESULT_INVALID) and writes the rest of its batch', async () => {
    const outcomes = await batch(row('w-bad-0', 1), [
      row('w-bad-a', 1),
      row('w-bad', 1, { sourceVersion: 2 ** 63 }),
      row('w-bad-b', 1),
    ]);

    expect(outcomes[0]).toBe('written');
    expect(outcomes[1]).toBeInstanceOf(PermanentError);
    expect(outcomes[1]).toMatchObject({ code: 'RESULT_INVALID' });
    expect(outcomes[2]).toBe('written');
    expect([await texts('w-bad-a'), await texts('w-bad'), await texts('w-bad-b')]).toEqual([
      ['Hello v1'],
      [],
      ['Hello v1'],
    ]);
  });

  it('fails a lone invalid row as RESULT_INVALID too', async () => {
    await expect(writer.write(row('w-bad-alone', 2 ** 63))).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'RESULT_INVALID',
    });
  });

  it('passes on a database error outside the data-exception class as it is, not as RESULT_INVALID', async () => {
    // A null text breaks a NOT NULL constraint (SQLSTATE 23502, class 23): not a data exception.
    const error = await writer
      .write(row('w-null', 1, { translatedText: null as unknown as string }))
      .catch((err: unknown) => err);

    expect(error).toMatchObject({ code: '23502' });
    expect(error).not.toBeInstanceOf(PermanentError);
  });

  it('passes on an error that is not about the data as it is, so the message is retried', async () => {
    const url = new URL(db.url);
    url.pathname = `${url.pathname}_missing`;
    const missing = await unconnectedDatabase({ url: url.toString(), poolMax: 1 });
    try {
      const error = await new TranslationWriter(missing)
        .write(row('w-missing', 1))
        .catch((err: unknown) => err);

      expect(error).toMatchObject({ code: '3D000' });
      expect(error).not.toBeInstanceOf(PermanentError);
    } finally {
      await missing.close(true);
    }
  });
});
