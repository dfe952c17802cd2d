import { describe, expect, it } from '@jest/globals';
import type { ContentChangedData, ContentDeletedData } from '@tp/contracts';
import { PermanentError, requestedFields, sourceHash } from '@tp/pipeline';

import { checkContentChange, checkContentDeletion } from './check-content-change.js';
import {
  planTranslations,
  type PlanInput,
  type StoredFieldState,
  type TranslationPlan,
} from './plan-translations.js';

/** Each field and language the plan requests, as `field:lang`, in the order its requests carry them. */
const requested = (result: TranslationPlan): string[] =>
  result.requests.flatMap((r) => requestedFields(r).map(({ field }) => `${field}:${r.targetLang}`));

const change = (over: Partial<ContentChangedData> = {}): ContentChangedData => ({
  module: 'catalog',
  entityType: 'vendor',
  entityId: 'v-1',
  sourceLang: 'zh-CN',
  sourceVersion: 2,
  fields: [
    { name: 'name', text: '你好', format: 'text' },
    { name: 'description', text: '好吃', format: 'text' },
  ],
  ...over,
});

const stored = (
  field: string,
  text: string,
  sourceVersion: number,
  module = 'catalog',
): StoredFieldState => ({
  module,
  field,
  sourceLang: 'zh-CN',
  sourceHash: sourceHash(text),
  sourceVersion,
  format: 'text',
});

const enabled = { targetLanguages: ['en', 'ja', 'de'], enabled: true, humanOnlyLanguages: [] };

const plan = (over: Partial<PlanInput> = {}) =>
  planTranslations({ change: change(), typeOwner: undefined, stored: [], settings: enabled, ...over });

const permanentCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PermanentError) return err.code;
    throw err;
  }
  return undefined;
};

describe('planTranslations', () => {
  it('requests no machine translation of a changed field with a human translation in a human-only language', () => {
    const result = plan({
      settings: { ...enabled, humanOnlyLanguages: ['ja'] },
      stored: [stored('name', '旧', 1)],
      humanTranslations: new Map([
        ['name', new Set(['ja', 'de'])],
        ['description', new Set(['en'])],
      ]),
    });
    // ja is human-only: its human translation of name stays; de is not, so it is requested.
    expect(requested(result)).toEqual([
      'name:en',
      'description:en',
      'description:ja',
      'name:de',
      'description:de',
    ]);
  });

  it('stores new fields and requests every field in one request per target language', () => {
    const result = plan();
    expect(result.writes.map((w) => [w.kind, w.field, w.sourceVersion])).toEqual([
      ['insert', 'name', 2],
      ['insert', 'description', 2],
    ]);
    expect(result.requests.map((r) => r.targetLang)).toEqual(['en', 'ja', 'de']);
    expect(requested(result)).toEqual([
      'name:en',
      'description:en',
      'name:ja',
      'description:ja',
      'name:de',
      'description:de',
    ]);
    expect(result.requests[0]).toEqual({
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      text: '你好',
      sourceHash: sourceHash('你好'),
      sourceVersion: 2,
      format: 'text',
      moreFields: [
        {
          field: 'description',
          text: '好吃',
          sourceHash: sourceHash('好吃'),
          sourceVersion: 2,
          format: 'text',
        },
      ],
    });
  });

  it('treats a new format as a change even when the text is the same, and stores it', () => {
    const result = plan({
      change: change({ fields: [{ name: 'name', text: '你好', format: 'html' }] }),
      stored: [stored('name', '你好', 2)],
    });
    expect(result.writes.map((w) => [w.field, w.format])).toEqual([['name', 'html']]);
    expect(requested(result)).toEqual(['name:en', 'name:ja', 'name:de']);
  });

  it('carries the format each field was reported in', () => {
    const result = plan({
      change: change({
        fields: [
          { name: 'name', text: '你好', format: 'text' },
          { name: 'body', text: '<p>好吃</p>', format: 'html' },
          { name: 'notes', text: '*好*', format: 'markdown' },
        ],
      }),
    });
    const [first] = result.requests;
    expect(first && requestedFields(first).map(({ field, format }) => `${field}:${format}`)).toEqual([
      'name:text',
      'body:html',
      'notes:markdown',
    ]);
  });

  it('never requests the source language, and asks for each configured language once', () => {
    const result = plan({
      settings: {
        targetLanguages: ['zh-CN', 'en', 'EN', 'en-US', 'xx-unknown'],
        enabled: true,
        humanOnlyLanguages: [],
      },
    });
    expect(requested(result)).toEqual(['name:en', 'description:en']);
  });

  it('requests nothing for an unchanged field, and only records a newer version of it', () => {
    const result = plan({ stored: [stored('name', '你好', 1), stored('description', '旧的', 1)] });
    expect(result.unchanged).toEqual(['name']);
    expect(requested(result)).toEqual(['description:en', 'description:ja', 'description:de']);
    expect(result.writes.map((w) => [w.kind, w.field, w.sourceVersion])).toEqual([
      ['update', 'name', 2],
      ['update', 'description', 2],
    ]);
  });

  it('writes nothing for a redelivered change', () => {
    const result = plan({ stored: [stored('name', '你好', 2), stored('description', '好吃', 2)] });
    expect(result).toEqual({
      writes: [],
      requests: [],
      stale: [],
      unchanged: ['name', 'description'],
      removed: [],
    });
  });

  it('removes a stored field the change leaves out, unless the stored field is newer than the change', () => {
    const result = plan({
      change: change({ fields: [{ name: 'name', text: '你好', format: 'text' }] }),
      stored: [stored('name', '你好', 1), stored('description', '好吃', 2), stored('tagline', '新', 3)],
    });
    expect(result.removed).toEqual(['description']);
    expect(result.writes.map((w) => w.field)).toEqual(['name']);
  });

  it('ignores a field new to an entity stored at a newer version (that report left it out)', () => {
    const result = plan({
      change: change({ sourceVersion: 1, fields: [{ name: 'tagline', text: '新', format: 'text' }] }),
      stored: [stored('name', '你好', 2)],
    });
    expect(result).toMatchObject({ writes: [], requests: [], stale: ['tagline'], removed: [] });
  });

  it('writes, requests and removes nothing for a change not newer than the deletion of the entity', () => {
    for (const sourceVersion of [1, 2]) {
      const result = plan({ change: change({ sourceVersion }), deletedVersion: 2 });
      expect(result).toEqual({
        writes: [],
        requests: [],
        stale: ['name', 'description'],
        unchanged: [],
        removed: [],
      });
    }
  });

  it('brings a deleted entity back with a change newer than its deletion', () => {
    const result = plan({ change: change({ sourceVersion: 3 }), deletedVersion: 2 });
    expect(result.writes.map((w) => [w.kind, w.field])).toEqual([
      ['insert', 'name'],
      ['insert', 'description'],
    ]);
    expect(requested(result)).toHaveLength(6);
  });

  it('ignores a field whose stored version is newer, even when its text differs', () => {
    const result = plan({ stored: [stored('name', '新的', 3), stored('description', '好吃', 1)] });
    expect(result.stale).toEqual(['name']);
    expect(result.writes.map((w) => w.field)).toEqual(['description']);
    expect(result.requests).toEqual([]);
  });

  it('applies a changed text of the same version (only a newer stored version wins)', () => {
    const result = plan({ stored: [stored('name', '别的', 2), stored('description', '好吃', 2)] });
    expect(result.writes.map((w) => w.field)).toEqual(['name']);
    expect(requested(result)).toEqual(['name:en', 'name:ja', 'name:de']);
  });

  it('treats a new source language as a change even when the text is the same', () => {
    const result = plan({
      change: change({ sourceLang: 'ja', fields: [{ name: 'name', text: '你好', format: 'text' }] }),
      stored: [stored('name', '你好', 2)],
    });
    expect(result.writes.map((w) => w.field)).toEqual(['name']);
    expect(result.requests.map((r) => r.targetLang)).toEqual(['en', 'de']);
  });

  it('stores the source but requests nothing while translation is disabled', () => {
    const result = plan({
      settings: { targetLanguages: ['en', 'ja'], enabled: false, humanOnlyLanguages: [] },
    });
    expect(result.writes).toHaveLength(2);
    expect(result.requests).toEqual([]);
  });

  it('refuses a type owned by another module (MODULE_CONFLICT)', () => {
    expect(permanentCode(() => plan({ typeOwner: 'billing' }))).toBe('MODULE_CONFLICT');
    expect(permanentCode(() => plan({ stored: [stored('name', 'x', 1, 'billing')] }))).toBe(
      'MODULE_CONFLICT',
    );
    expect(permanentCode(() => plan({ typeOwner: 'catalog' }))).toBeUndefined();
  });
});

describe('checkContentChange', () => {
  it('normalises the source language to our code', () => {
    expect(checkContentChange(change({ sourceLang: 'zh_cn' })).sourceLang).toBe('zh-CN');
    const same = change();
    expect(checkContentChange(same)).toBe(same);
  });

  it('refuses an unknown source language, and auto (content has a known language)', () => {
    expect(permanentCode(() => checkContentChange(change({ sourceLang: 'klingon' })))).toBe(
      'UNSUPPORTED_LANGUAGE',
    );
    expect(permanentCode(() => checkContentChange(change({ sourceLang: 'auto' })))).toBe(
      'UNSUPPORTED_LANGUAGE',
    );
  });

  const refusal = (data: ContentChangedData): string | undefined => {
    try {
      checkContentChange(data);
    } catch (err) {
      if (err instanceof PermanentError) return `${err.code} ${err.message}`;
      throw err;
    }
    return undefined;
  };

  it('refuses a change the API could not serve (CONTENT_INVALID), naming the broken rule', () => {
    expect(refusal(change({ entityType: 'Vendor' }))).toBe(
      'CONTENT_INVALID entityType: must be 1-100 characters of a-z, 0-9, _ and -',
    );
    expect(refusal(change({ module: 'Catalog' }))).toBe(
      'CONTENT_INVALID module: must be 1-100 characters of a-z, 0-9, _ and -',
    );
    expect(refusal(change({ entityType: 'text' }))).toBe(
      'CONTENT_INVALID entityType: text is reserved for the results of POST /api/v1/translate',
    );
    expect(refusal(change({ entityType: 'tracking' }))).toMatch(
      /^CONTENT_INVALID entityType: tracking is reserved/,
    );
    expect(refusal(change({ fields: [] }))).toBe('CONTENT_INVALID fields: at least one field is needed');
    expect(refusal(change({ fields: [{ name: 'a b', text: 'x', format: 'text' }] }))).toBe(
      'CONTENT_INVALID fields.0.name: field names are 1-100 characters of A-Z, a-z, 0-9, _, . and -',
    );
    expect(refusal(change({ fields: [{ name: 'name', text: '', format: 'text' }] }))).toBe(
      'CONTENT_INVALID fields.0.text: text must not be empty',
    );
    expect(refusal(change({ sourceVersion: 1.5 }))).toMatch(/^CONTENT_INVALID sourceVersion: /);
    expect(refusal(change({ entityType: 'vendor_2-b' }))).toBeUndefined();
  });

  it('names every broken rule of a change in one CONTENT_INVALID', () => {
    const message = refusal(
      change({
        entityId: 'x'.repeat(201),
        module: ' ',
        sourceVersion: -1,
        fields: [
          { name: 'name', text: 'a\u0000b', format: 'text' },
          { name: 'name', text: 'b', format: 'text' },
          { name: 'n'.repeat(101), text: 'c', format: 'text' },
        ],
      }),
    );
    expect(message).toMatch(/^CONTENT_INVALID /);
    for (const problem of [
      'module: must be 1-100 characters',
      'entityId: Too big',
      'sourceVersion: ',
      'fields.0.text: text must not contain U+0000',
      'fields.1.name: the name of fields.0 again',
      'fields.2.name: field names are 1-100 characters',
    ]) {
      expect(message).toContain(problem);
    }
    // 200 characters of a wide script is within the id's limit: the column counts characters, not units.
    expect(refusal(change({ entityId: '😀'.repeat(200) }))).toBeUndefined();
  });

  it('names at most ten broken rules and counts the rest', () => {
    const fields = Array.from({ length: 150 }, () => ({ name: 'same', text: '', format: 'text' }));
    const message = refusal(change({ fields })) ?? '';
    expect(message.split('; ')).toHaveLength(11);
    expect(message).toMatch(/; and 289 more$/);
  });
});

describe('checkContentDeletion', () => {
  const deletion = (over: Partial<ContentDeletedData> = {}): ContentDeletedData => ({
    module: 'catalog',
    entityType: 'vendor',
    entityId: 'v-1',
    sourceVersion: 3,
    ...over,
  });
  const problem = (data: ContentDeletedData): string | undefined => {
    try {
      checkContentDeletion(data);
    } catch (err) {
      if (err instanceof PermanentError) return `${err.code} ${err.message}`;
      throw err;
    }
    return undefined;
  };

  it('passes a deletion with or without a version through unchanged', () => {
    const data = deletion();
    expect(checkContentDeletion(data)).toBe(data);
    expect(problem(deletion({ sourceVersion: null }))).toBeUndefined();
    expect(problem(deletion({ sourceVersion: 0 }))).toBeUndefined();
  });

  it('refuses the reserved free-text entity type and a type the API could not address', () => {
    expect(problem(deletion({ entityType: 'text' }))).toBe(
      'CONTENT_INVALID entityType: text is reserved for the results of POST /api/v1/translate',
    );
    expect(problem(deletion({ entityType: 'Vendor' }))).toBe(
      'CONTENT_INVALID entityType: must be 1-100 characters of a-z, 0-9, _ and -',
    );
  });

  it('names every broken rule of the deletion in one CONTENT_INVALID', () => {
    const message = problem(deletion({ module: ' ', entityId: 'a\u0000b', sourceVersion: -1 }));
    expect(message).toMatch(
      /^CONTENT_INVALID module: must be 1-100 characters of a-z, 0-9, _ and -; entityId: must not contain control characters; sourceVersion: /,
    );
    expect(problem(deletion({ sourceVersion: 1.5 }))).toMatch(/^CONTENT_INVALID sourceVersion: /);
  });
});
