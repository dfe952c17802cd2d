import { describe, expect, it } from '@jest/globals';
import type { ContentChangedData, ContentDeletedData } from '@tp/contracts';

import {
  brokenContentRules,
  contentText,
  entityId,
  entitySegment,
  fieldName,
  isEntityId,
  MAX_REPORTED_FIELDS,
  reservedTypeReason,
} from './content-rules.js';

const change = (over: Partial<ContentChangedData> = {}): ContentChangedData => ({
  module: 'catalog',
  entityType: 'vendor',
  entityId: 'v-1',
  sourceLang: 'zh-CN',
  sourceVersion: 1,
  fields: [{ name: 'name', text: '你好', format: 'text' }],
  ...over,
});

const deletion = (over: Partial<ContentDeletedData> = {}): ContentDeletedData => ({
  module: 'catalog',
  entityType: 'vendor',
  entityId: 'v-1',
  sourceVersion: null,
  ...over,
});

describe('the names a business system may use', () => {
  it('takes modules and entity types of 1-100 of a-z, 0-9, _ and -, and nothing else', () => {
    for (const ok of ['vendor', 'a', 'shop_2-b', 'x'.repeat(100)])
      expect(entitySegment.safeParse(ok).success).toBe(true);
    for (const bad of ['Vendor', '', 'x'.repeat(101), 'ven dor', 'vendor.', 'véndor', 'vendor\n']) {
      expect(entitySegment.safeParse(bad).success).toBe(false);
    }
  });

  it('takes ids of 1-200 characters (code points) without control characters', () => {
    expect(isEntityId('V-1 any text/ÿ')).toBe(true);
    expect(isEntityId('😀'.repeat(200))).toBe(true);
    expect(isEntityId('😀'.repeat(201))).toBe(false);
    expect(isEntityId('')).toBe(false);
    expect(isEntityId('a\u0000b')).toBe(false);
    expect(entityId.safeParse('a\tb').success).toBe(false);
  });

  it('takes field names of 1-100 of A-Z, a-z, 0-9, _, . and -', () => {
    for (const ok of ['name', 'Name.long_2-x', 'n'.repeat(100)])
      expect(fieldName.safeParse(ok).success).toBe(true);
    for (const bad of ['', 'n'.repeat(101), 'a b', 'ä', 'a/b'])
      expect(fieldName.safeParse(bad).success).toBe(false);
  });

  it('takes texts that are not empty, have no U+0000 and, where a limit is given, are within it', () => {
    expect(contentText().safeParse('x'.repeat(100_000)).success).toBe(true);
    expect(contentText().safeParse('').success).toBe(false);
    expect(contentText().safeParse('a\u0000').success).toBe(false);
    expect(contentText(3).safeParse('😀😀😀').success).toBe(true);
    expect(contentText(3).safeParse('😀😀😀😀').success).toBe(false);
  });

  it('reserves text (free-text translations) and tracking (the tracking path), and nothing else', () => {
    expect(reservedTypeReason('text')).toMatch(/POST \/api\/v1\/translate/);
    expect(reservedTypeReason('tracking')).toMatch(/tracking/);
    expect(reservedTypeReason('vendor')).toBeUndefined();
    expect(reservedTypeReason('constructor')).toBeUndefined();
  });
});

describe('brokenContentRules', () => {
  it('finds nothing wrong with a change or a deletion that keeps every rule', () => {
    expect(brokenContentRules(change())).toBeUndefined();
    expect(brokenContentRules(deletion())).toBeUndefined();
    expect(brokenContentRules(deletion({ sourceVersion: 0 }))).toBeUndefined();
    const most = Array.from({ length: MAX_REPORTED_FIELDS }, (_, i) => ({
      name: `f${i}`,
      text: 'x',
      format: 'text',
    }));
    expect(brokenContentRules(change({ fields: most }))).toBeUndefined();
  });

  it('names each broken rule with its path', () => {
    expect(brokenContentRules(change({ entityType: 'Vendor' }))).toBe(
      'entityType: must be 1-100 characters of a-z, 0-9, _ and -',
    );
    expect(brokenContentRules(deletion({ module: 'Catalog', sourceVersion: -1 }))).toMatch(
      /^module: must be 1-100 characters of a-z, 0-9, _ and -; sourceVersion: /,
    );
    expect(
      brokenContentRules(
        change({
          fields: [
            { name: 'a', text: 'x', format: 'text' },
            { name: 'a', text: 'y', format: 'text' },
          ],
        }),
      ),
    ).toBe('fields.1.name: the name of fields.0 again');
    const many = Array.from({ length: MAX_REPORTED_FIELDS + 1 }, (_, i) => ({
      name: `f${i}`,
      text: 'x',
      format: 'text',
    }));
    expect(brokenContentRules(change({ fields: many }))).toBe(
      `fields: at most ${MAX_REPORTED_FIELDS} fields per report`,
    );
    expect(brokenContentRules(change({ sourceVersion: 2 ** 53 }))).toMatch(/^sourceVersion: /);
  });

  it('takes a field written as text, html or markdown, and names any other format', () => {
    for (const format of ['text', 'html', 'markdown']) {
      expect(
        brokenContentRules(change({ fields: [{ name: 'body', text: '<p>x</p>', format }] })),
      ).toBeUndefined();
    }
    expect(brokenContentRules(change({ fields: [{ name: 'body', text: 'x', format: 'rtf' }] }))).toMatch(
      /^fields\.0\.format: /,
    );
  });

  it('names at most ten broken rules and counts the others', () => {
    const fields = Array.from({ length: 12 }, () => ({ name: 'bad name', text: 'x', format: 'text' }));
    const broken = brokenContentRules(change({ fields })) ?? '';
    expect(broken.split('; ')).toHaveLength(11);
    expect(broken).toMatch(/^fields\.0\.name: .*; and 13 more$/);
  });
});
