import { readFileSync } from 'node:fs';

import { describe, expect, it } from '@jest/globals';

import { ERROR_CATALOGUE } from './errors.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('the error catalogue', () => {
  it('has unique numeric codes, each its HTTP status times 100 plus a sequence', () => {
    const entries = Object.values(ERROR_CATALOGUE);
    expect(new Set(entries.map((e) => e.code)).size).toBe(entries.length);
    for (const e of entries) expect(Math.floor(e.code / 100)).toBe(e.status);
  });

  it('is listed row for row in docs/errors.md', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| `([A-Z_]+)` \| (\d+) \|/gm)].map(([, code, name, status]) => [
      name,
      Number(code),
      Number(status),
    ]);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([name, e]) => [name, e.code, e.status]);
    expect(rows).toEqual(catalogue);
  });
});
