import { describe, expect, it } from '@jest/globals';

import { generateApiKey, hashApiKey, looksLikeApiKey, parseBearer } from './api-key.js';

describe('API keys', () => {
  it('are 256 random bits behind a tp_ prefix, different every time', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^tp_[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
    expect(looksLikeApiKey(a.key)).toBe(true);
  });

  it('keep only a SHA-256 hash and a short prefix that cannot rebuild the key', () => {
    const { key, hash, prefix } = generateApiKey();
    expect(hash).toBe(hashApiKey(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(key.slice(3));
    expect(prefix).toBe(key.slice(0, 11));
  });
});

describe('parseBearer', () => {
  it.each([
    [undefined, { kind: 'missing' }],
    ['', { kind: 'missing' }],
    ['Bearer abc', { kind: 'token', token: 'abc' }],
    ['bearer abc', { kind: 'token', token: 'abc' }],
    ['Bearer  abc ', { kind: 'token', token: 'abc' }],
    ['Bearer', { kind: 'malformed' }],
    ['Bearer a b', { kind: 'malformed' }],
    ['Basic dXNlcg==', { kind: 'malformed' }],
    ['abc', { kind: 'malformed' }],
  ])('reads %j as %j', (header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});
