import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

/**
 * The repository's own ESLint configuration, run on snippets placed where production code lives: a new
 * regular expression that could backtrack on user text fails the lint step of `npm test`.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function problems(
  code: string,
  filePath = 'services/gateway/src/example/example.ts',
): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'tp/linear-regex').map((m) => m.message);
}

describe('tp/linear-regex', () => {
  it.each([
    ['a greedy star', 'export const re = /<a[^>]*>/;'],
    ['a plus', 'export const words = (t: string) => t.split(/\\s+/u);'],
    ['an open range', 'export const re = /a{2,}/;'],
    ['a backreference', 'export const re = /(a)\\1/;'],
    ['a constructed pattern', "export const re = new RegExp('(?:x|y)+', 'g');"],
    ['String.raw', 'export const re = new RegExp(String.raw`\\d+`);'],
    ['a computed pattern', 'export const re = (s: string) => new RegExp(s);'],
  ])('reports %s in production code', async (_name, code) => {
    expect(await problems(code)).toHaveLength(1);
  });

  it.each([
    ['bounded quantifiers', 'export const re = /^[a-z]{2,8}(?:-[a-z0-9]{1,8}){0,15}$/;'],
    ['single characters', "export const clean = (t: string) => t.replace(/[\\s\\p{Cc}]/gu, '');"],
    ['an optional part', 'export const re = /^https?$/;'],
  ])('accepts %s', async (_name, code) => {
    expect(await problems(code)).toEqual([]);
  });

  it('accepts an unbounded pattern that says why it never sees user text', async () => {
    const code = '// not user text: a configuration value\nexport const re = /^[^\\s:]+:\\d{1,5}$/;';
    expect(await problems(code)).toEqual([]);
  });

  it('does not apply to tests', async () => {
    expect(await problems('export const re = /a+b+/;', 'services/gateway/src/x.unit.test.ts')).toEqual([]);
  });
});
