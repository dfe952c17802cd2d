import { describe, expect, it } from '@jest/globals';

import { AllEnginesFailedError, type ChainResult } from '../chain/index.js';
import { joinSegments } from './join-segments.js';

const result = (text: string, extra: Partial<ChainResult> = {}): ChainResult => ({
  text,
  engine: 'apertium',
  truncated: false,
  fallback: false,
  attempts: [{ slot: 'apertium', engine: 'apertium', outcome: 'ok', ms: 1 }],
  route: [{ source: 'en', target: 'es', engine: 'apertium' }],
  ...extra,
});

const segmented = (segments: string[]) => ({
  segments,
  reassemble: (translations: readonly string[]) => translations.map((t) => `[${t}]`).join(''),
});

describe('joinSegments', () => {
  it('puts the segments back in order, naming every engine and summing unknown words', () => {
    const joined = joinSegments(
      [
        result('uno', { unknownWords: 1 }),
        result('dos', { engine: 'libretranslate', fallback: true, unknownWords: 2 }),
      ],
      segmented(['one', 'two']),
    );

    expect(joined).toMatchObject({
      text: '[uno][dos]',
      engine: 'apertium+libretranslate',
      fallback: true,
      truncated: false,
      unknownWords: 3,
      route: [{ source: 'en', target: 'es', engine: 'apertium' }],
    });
  });

  it('fails the text with the first failed segment: a document is not translated in part', () => {
    const failed = new AllEnginesFailedError([]);
    expect(joinSegments([result('uno'), failed, result('tres')], segmented(['a', 'b', 'c']))).toBe(failed);
  });

  it('answers the markup as it is, with no engine, when there is nothing to translate', () => {
    expect(joinSegments([], segmented([]))).toMatchObject({ text: '', engine: undefined, attempts: [] });
  });

  it('keeps a single segment as the chain answered it, text reassembled', () => {
    expect(joinSegments([result('hola', { truncated: true })], segmented(['hello']))).toMatchObject({
      text: '[hola]',
      truncated: true,
      engine: 'apertium',
    });
  });
});
