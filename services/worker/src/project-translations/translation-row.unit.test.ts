import { describe, expect, it } from '@jest/globals';
import type { FieldResult, TranslationCompleted, TranslationCompletedData } from '@tp/contracts';
import { PermanentError } from '@tp/pipeline';
import { newEvent } from '@tp/schemas';

import { rowKey, translationRows, type TranslationRow } from './translation-row.js';

function completed(over: Partial<TranslationCompletedData> = {}): TranslationCompleted {
  return newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: 'Hello',
      sourceHash: 'a'.repeat(64),
      sourceVersion: 3,
      engine: 'offline',
      truncated: true,
      fallback: false,
      detectedSourceLang: null,
      requestedAt: 1_700_000_000_000,
      moreResults: [],
      failures: [],
      ...over,
    },
    { correlationId: 'corr-1' },
  );
}

/** A result of another field of the batch (v5), with its own values. */
function fieldResult(over: Partial<FieldResult> = {}): FieldResult {
  return {
    entityId: null,
    field: 'body',
    translatedText: 'Body',
    sourceHash: 'b'.repeat(64),
    sourceVersion: 4,
    engine: 'apertium',
    truncated: false,
    fallback: false,
    detectedSourceLang: null,
    ...over,
  };
}

/** The one row of a result of one field. */
function translationRow(event: TranslationCompleted): TranslationRow {
  const rows = translationRows(event);
  expect(rows).toHaveLength(1);
  return rows[0] as TranslationRow;
}

/** The PermanentError translationRows throws for `event`, or fails. */
function refusal(event: TranslationCompleted): PermanentError {
  try {
    translationRows(event);
  } catch (err) {
    if (err instanceof PermanentError) return err;
    throw err;
  }
  throw new Error('translationRows accepted the event');
}

describe('translationRow', () => {
  it('takes every column from the result and the event id', () => {
    const event = completed({ fallback: true });

    expect(translationRow(event)).toEqual({
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      targetLang: 'en',
      sourceLang: 'zh-CN',
      translatedText: 'Hello',
      sourceHash: 'a'.repeat(64),
      sourceVersion: 3,
      requestedAt: 1_700_000_000_000,
      engine: 'offline',
      truncated: true,
      fallback: true,
      lastEventId: event.eventId,
    });
  });

  it('makes one row of each result of a batch, sharing the languages, request time and event', () => {
    const more = fieldResult({ fallback: true });
    const event = completed({ targetLang: 'EN', moreResults: [more] });
    const rows = translationRows(event);
    expect(
      rows.map((row) => [row.field, row.translatedText, row.sourceVersion, row.engine, row.fallback]),
    ).toEqual([
      ['name', 'Hello', 3, 'offline', false],
      ['body', 'Body', 4, 'apertium', true],
    ]);
    expect(rows.every((row) => row.targetLang === 'en' && row.requestedAt === 1_700_000_000_000)).toBe(true);
    expect(rows.every((row) => row.lastEventId === event.eventId && row.entityId === 'v-1')).toBe(true);
  });

  it('names the result of a batch that the database could never take by its place in moreResults', () => {
    const bad = fieldResult({ field: '', translatedText: 'x' });
    expect(refusal(completed({ moreResults: [bad] }))).toMatchObject({
      code: 'RESULT_INVALID',
      message: 'moreResults.0.field: empty',
    });
  });

  it("files each free text result of a batch under the entity it names, the first under the event's", () => {
    const result = (entityId: string | null, translatedText: string) =>
      fieldResult({ entityId, field: 'text', translatedText, sourceVersion: 0 });
    const event = completed({
      entityType: 'text',
      entityId: 'h-1',
      field: 'text',
      moreResults: [result('h-2', 'Two'), result(null, 'Again')],
    });
    expect(translationRows(event).map((row) => [row.entityId, row.translatedText])).toEqual([
      ['h-1', 'Hello'],
      ['h-2', 'Two'],
      ['h-1', 'Again'],
    ]);
  });

  it("refuses a reported entity's result that names another entity (only free text may)", () => {
    const other = fieldResult({ entityId: 'v-2' });
    expect(refusal(completed({ moreResults: [{ ...other, entityId: 'v-1' }, other] }))).toMatchObject({
      code: 'RESULT_INVALID',
      message: 'moreResults.1.entityId: only free text (entityType text) results name their own entity',
    });
  });

  it('stores our language codes, and keeps auto as the source of undetected free text', () => {
    expect(translationRow(completed({ sourceLang: 'zh_cn', targetLang: 'EN-us' }))).toMatchObject({
      sourceLang: 'zh-CN',
      targetLang: 'en',
    });
    expect(translationRow(completed({ sourceLang: 'auto' })).sourceLang).toBe('auto');
  });

  it.each([
    [{ targetLang: 'xx-nowhere' }, 'targetLang: unsupported language "xx-nowhere"'],
    [{ sourceLang: 'klingon' }, 'sourceLang: unsupported language "klingon"'],
    [{ targetLang: 'auto' }, 'targetLang: unsupported language "auto"'],
  ])('refuses %j as UNSUPPORTED_LANGUAGE', (over, message) => {
    expect(refusal(completed(over))).toMatchObject({ code: 'UNSUPPORTED_LANGUAGE', message });
  });

  it('names every problem of a result the database could never take in one RESULT_INVALID', () => {
    const event = {
      ...completed({
        entityType: ' ',
        entityId: 'x'.repeat(201),
        field: 'na\u0000me',
        sourceHash: '',
        engine: 'e'.repeat(50) + '\u0000',
        translatedText: 'Hel\u0000lo',
        sourceVersion: -1,
      }),
      eventId: 'not-a-uuid',
    };

    expect(refusal(event)).toMatchObject({
      code: 'RESULT_INVALID',
      message:
        'entityType: empty; entityId: longer than 200 characters; field: contains U+0000; sourceHash: empty; ' +
        'engine: longer than 50 characters; engine: contains U+0000; translatedText: contains U+0000; ' +
        'sourceVersion: -1 is not a non-negative integer; eventId: "not-a-uuid" is not a UUID',
    });
  });

  it('counts the length of a column in characters, not UTF-16 units', () => {
    const emoji = '😀'.repeat(200);
    expect(translationRow(completed({ entityId: emoji })).entityId).toBe(emoji);
    expect(refusal(completed({ entityId: `${emoji}x` })).message).toBe(
      'entityId: longer than 200 characters',
    );
  });

  it.each([1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN])('refuses source version %p', (sourceVersion) => {
    expect(refusal(completed({ sourceVersion }))).toMatchObject({ code: 'RESULT_INVALID' });
  });

  it('accepts source version 0 and an event id in capitals', () => {
    const event = { ...completed({ sourceVersion: 0 }), eventId: 'A0B1C2D3-E4F5-4A6B-8C9D-0E1F2A3B4C5D' };
    expect(translationRow(event)).toMatchObject({ sourceVersion: 0, lastEventId: event.eventId });
  });

  it.each([
    ['x', ''],
    ['urn:uuid:', ''],
    ['', '0'],
    ['', '-x'],
  ])('refuses an event id with %p before the UUID and %p after it', (before, after) => {
    const event = completed();
    const eventId = `${before}${event.eventId}${after}`;
    expect(refusal({ ...event, eventId })).toMatchObject({
      code: 'RESULT_INVALID',
      message: `eventId: ${JSON.stringify(eventId)} is not a UUID`,
    });
  });

  it.each([0, -5, 1.5, Number.MAX_SAFE_INTEGER + 1])(
    'stores request time %p, which no request has, as 0 (older than any real one)',
    (requestedAt) => {
      expect(translationRow(completed({ requestedAt })).requestedAt).toBe(0);
    },
  );

  it('keys a row by entity type, id, field and target language, so no two keys run together', () => {
    const row = translationRow(completed());
    expect(rowKey(row)).toBe('vendor\u0000v-1\u0000name\u0000en');
    expect(rowKey({ ...row, entityType: 'vendor\u0000v', entityId: '1' })).not.toBe(rowKey(row));
  });
});
