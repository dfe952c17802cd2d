import { describe, expect, it } from '@jest/globals';

import { listEntries } from './term-lists.js';
import { TermMatcher, type TermEntry } from './term-matcher.js';

const block = (term: string, language: string | null = null): TermEntry => ({
  term,
  kind: 'block',
  language,
  source: 'custom',
});
const allow = (term: string): TermEntry => ({ term, kind: 'allow', language: null, source: 'custom' });

/** The built-in lists, as the gateway uses them. */
const lists = TermMatcher.build(listEntries());
const found = (text: string, matcher = lists) => matcher.find(text).map((m) => m.text);

describe('TermMatcher with the built-in lists', () => {
  it('finds a Chinese term inside a Chinese sentence, with its span', () => {
    const text = '你这个傻逼，滚开';
    const matches = lists.find(text);
    expect(matches).toEqual([
      { term: '傻逼', start: 3, end: 5, text: '傻逼', language: 'zh', source: 'list' },
    ]);
  });

  it('finds a Japanese and a Thai term inside running text', () => {
    expect(found('これはおっぱいの話です')).toEqual(['おっぱい']);
    expect(found('พูดว่าเหี้ยทำไม')).toEqual(['เหี้ย']);
  });

  it('finds whole words of space-delimited languages', () => {
    expect(found('what the fuck, you ass')).toEqual(['fuck', 'ass']);
    expect(found('Du bist ein Arschloch.')).toEqual(['Arschloch']);
  });

  it('finds a Latin term with a mark of another script on its last letter', () => {
    expect(found('what the fuck\u0e31 is this')).toEqual(['fuck\u0e31']);
  });

  it.each([
    ['an emoji skin-tone modifier after it', 'what the fuck\u{1f3fb} is this', 'fuck'],
    ['an emoji skin-tone modifier after it, at the end', 'you ass\u{1f3ff}', 'ass'],
    ['a prepended concatenation mark before it', 'what the \u0600fuck is this', 'fuck'],
    ['a supplementary-plane prepended concatenation mark before it', 'what the \u{110bd}shit', 'shit'],
    [
      'a supplementary-plane mark on its last ASCII letter',
      'what the fuck\u{11000} is this',
      'fuck\u{11000}',
    ],
    ['a mark of another script on a leetspeak digit', 'what sh1\u0e31t', 'sh1\u0e31t'],
    ['a halfwidth katakana sound mark after it', 'what the fuck\uff9e is this', 'fuck\uff9e'],
    ['Thai sara am after it', 'what the fuck\u0e33 is this', 'fuck\u0e33'],
    ['a zero-width space and a mark after it', 'what the fuck\u200b\u0e31 is this', 'fuck'],
    ['a zero-width non-joiner and a mark after it', 'what the fuck\u200c\u0e31 is this', 'fuck\u200c\u0e31'],
    ['a mark on the space before it', 'what the \u0591fuck is this', 'fuck'],
  ])('flags a term with %s', (_, text, match) => {
    expect(found(text)).toEqual([match]);
  });

  it('flags a term followed by 10,000 combining marks', () => {
    const marks = '\u0e31\u0e48'.repeat(5_000);
    expect(found(`what the fuck${marks} is this`)).toEqual([`fuck${marks}`]);
  });

  it('does not join words across emoji skin-tone modifiers or prepended concatenation marks', () => {
    expect(found('a cl\u{1f3fb}assic \u0600assassin \u{1f44d}\u{1f3fd} in Scunthorpe')).toEqual([]);
  });

  it('does not flag a Latin term inside a longer innocent word', () => {
    expect(found('A classic assassin from Scunthorpe passed the cockpit assessment in Essex')).toEqual([]);
  });

  it('catches full-width and zero-width evasions, with spans in the original text', () => {
    const text = 'you ｆｕ\u200bｃｋ!';
    expect(lists.find(text)).toEqual([
      expect.objectContaining({ term: 'fuck', start: 4, end: 9, text: 'ｆｕ\u200bｃｋ' }),
    ]);
  });

  it('catches leetspeak and look-alike letters', () => {
    expect(found('sh1t, a55, $hit and @ss')).toEqual(['sh1t', 'a55', '$hit', '@ss']);
    expect(found('what the fu\u0441k')).toEqual(['fu\u0441k']);
  });

  it('reports spans after surrogate pairs as UTF-16 indices of the original text', () => {
    const text = '😀😀 𝐬𝐡𝐢𝐭 😀';
    const [match] = lists.find(text);
    expect(match).toMatchObject({ start: 5, end: 13, text: '𝐬𝐡𝐢𝐭' });
    expect(text.slice(match?.start, match?.end)).toBe('𝐬𝐡𝐢𝐭');
  });

  it('lets digits and Chinese letters next to a Latin term count as word boundaries', () => {
    expect(found('shit2 fuck123')).toEqual(['shit', 'fuck']);
    expect(found('这是fuck吗')).toEqual(['fuck']);
  });

  it('reports the longest of terms found inside each other only', () => {
    // 他妈的 contains 他妈 and 妈的, and 傻逼 contains 逼: each is listed on its own too.
    expect(found('他妈的傻逼')).toEqual(['他妈的', '傻逼']);
  });

  it('limits list terms to the languages asked for, by primary subtag', () => {
    expect(lists.find('Arschloch 傻逼', { languages: ['de'] }).map((m) => m.term)).toEqual(['arschloch']);
    expect(lists.find('Arschloch 傻逼', { languages: ['zh-CN'] }).map((m) => m.term)).toEqual(['傻逼']);
  });

  it('finds nothing in clean or empty-after-normalisation text', () => {
    expect(found('Have a lovely day in Scunthorpe!')).toEqual([]);
    expect(found('\u200b\u200b')).toEqual([]);
  });
});

describe('TermMatcher with custom terms', () => {
  it('reports a custom term as custom, also when a list has it too', () => {
    const matcher = TermMatcher.build([block('Fuck', 'en'), ...listEntries()]);
    expect(matcher.find('fuck')).toEqual([
      { term: 'Fuck', start: 0, end: 4, text: 'fuck', language: 'en', source: 'custom' },
    ]);
  });

  it('lets an allowed phrase clear the blocked terms inside it, and only those', () => {
    const matcher = TermMatcher.build([block('bloody'), allow('Bloody Mary')]);
    expect(found('a bloody mary, please', matcher)).toEqual([]);
    expect(found('a BLOODY  MARY, bloody hell', matcher)).toEqual(['bloody']);
    expect(matcher.find('a BLOODY  MARY, bloody hell')[0]?.start).toBe(16);
  });

  it('removes a listed term by allowing exactly it', () => {
    const matcher = TermMatcher.build([allow('ass'), ...listEntries()]);
    expect(found('you ass, you shit', matcher)).toEqual(['shit']);
  });

  it('applies a custom term without a language whatever languages are asked for', () => {
    const matcher = TermMatcher.build([block('zorglub'), block('blarg', 'fr')]);
    expect(matcher.find('zorglub blarg', { languages: ['en'] }).map((m) => m.term)).toEqual(['zorglub']);
  });

  it('matches a custom Chinese term anywhere and a Korean one as a word', () => {
    const matcher = TermMatcher.build([block('坏蛋'), block('바보')]);
    expect(found('你是坏蛋吗', matcher)).toEqual(['坏蛋']);
    expect(found('너는 바보 야', matcher)).toEqual(['바보']);
    expect(found('바보야', matcher)).toEqual([]);
  });

  it('leaves out terms with nothing to match after normalisation', () => {
    const matcher = TermMatcher.build([block('\u200b'), block('ok')]);
    expect(matcher.skipped.map((e) => e.term)).toEqual(['\u200b']);
    expect(matcher.size).toBe(1);
  });
});
