import { describe, expect, it } from '@jest/globals';
import { adversarialTexts, callsOverLimit } from '@tp/test/harness/event-loop-block';

import { decodeHtmlEntities } from '../engines/google/google.entities.js';
import { truncateForMyMemory } from '../engines/mymemory/mymemory.truncate.js';
import { openLanguageDetector } from '../translate/detect-language.js';
import { checkOutput, longestRepeat } from './output-checks.js';
import { mask, restore, withoutProtectedSpans } from './protected-spans.js';
import { splitSentences, splitText } from './splitter.js';

/**
 * Every pattern the translator runs on user text, fed the strings that make backtracking patterns
 * quadratic or worse, at the request maximum (MAX_TEXT_CHARS, 50,000): no call may hold the event loop
 * more than 50 ms (issue 16; the old patterns took seconds on some of these). Timed, so it lives in
 * the integration tier; a call over the limit is measured again before it counts (see callsOverLimit).
 */
const MAX = 50_000;
const LIMIT_MS = 50;

const texts = adversarialTexts(
  MAX,
  [
    '<a b="c">',
    "<a b='c'>",
    '</a>',
    '<!-- x -->',
    '&amp;',
    '&#169;',
    '&#x2a;',
    'http://a.b/',
    'www.a.b',
    'a.b@c.de',
    '{{a}}',
    '${a}',
    '{a}',
    '%1$-05.2lf',
    '%(a)s',
    '⟦ 1 ⟧',
    'a. ',
    '。',
  ],
  ['<', '"', '.', '@', '{', '%', '⟦', ' ', ')', 'a', '1'],
).concat([
  ['a + dots + a', `a${'.'.repeat(MAX - 2)}a`],
  ['url + closing brackets', `http://a.b/${')'.repeat(MAX - 11)}`],
  ['surrogate pairs', '😀'.repeat(MAX / 2)],
  ['combining marks', `a${'\u0301'.repeat(MAX - 1)}`],
]);

describe('translator text handling on adversarial input', () => {
  const calls: readonly [string, (text: string) => unknown][] = [
    ['mask', (text) => mask(text)],
    ['restore', (text) => restore(text, ['x', 'y'])],
    ['withoutProtectedSpans', (text) => withoutProtectedSpans(text)],
    ['splitText 5000', (text) => splitText(text, 5000)],
    ['splitText 500', (text) => splitText(text, 500)],
    ['splitSentences', (text) => splitSentences(text)],
    ['checkOutput', (text) => checkOutput({ input: text, output: text, source: 'en', target: 'de' })],
    [
      'checkOutput (answer looping)',
      (text) => checkOutput({ input: text, output: `${text}${text}`, source: 'en', target: 'de' }),
    ],
    ['longestRepeat', (text) => longestRepeat(text, 24)],
    ['truncateForMyMemory', (text) => truncateForMyMemory(text)],
    ['decodeHtmlEntities', (text) => decodeHtmlEntities(text)],
  ];

  it.each(calls)('%s blocks the event loop at most 50 ms on every adversarial text', async (_name, call) => {
    expect(await callsOverLimit(call, texts, LIMIT_MS)).toEqual([]);
  });

  it('language detection (masking included) blocks at most 50 ms on every adversarial text', async () => {
    const detector = await openLanguageDetector();
    const hostile = texts.concat([
      ['one Han character repeated', '软'.repeat(MAX)],
      ['one Hangul syllable repeated', '한'.repeat(MAX)],
      ['mixed scripts', 'Привет مرحبا 你好 こんにちは नमस्ते hello '.repeat(MAX / 40)],
      ['digits only', '0123456789'.repeat(MAX / 10)],
    ]);
    expect(await callsOverLimit((text) => detector.identify(text), hostile, LIMIT_MS)).toEqual([]);
  });
});
