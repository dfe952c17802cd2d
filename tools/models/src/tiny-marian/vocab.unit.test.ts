import { describe, expect, it } from '@jest/globals';

import { ZH_EN_LEXICON, type Lexicon } from './lexicon.js';
import { buildVocab, targetToken } from './vocab.js';

const lexicon = (entries: Lexicon['entries'], lowercase = false): Lexicon => ({
  source: 'xx',
  target: 'yy',
  lowercase,
  entries,
});

describe('buildVocab', () => {
  it('lays out ids as Marian does: </s> 0, <unk> 1, <pad> last', () => {
    const vocab = buildVocab(ZH_EN_LEXICON);
    expect(vocab.tokens.slice(0, 2)).toEqual(['</s>', '<unk>']);
    expect(vocab.tokens.at(-1)).toBe('<pad>');
    expect([vocab.eosId, vocab.unkId, vocab.padId]).toEqual([0, 1, vocab.tokens.length - 1]);
  });

  it('translates each listed source token to its target token', () => {
    const vocab = buildVocab(ZH_EN_LEXICON);
    const translate = (token: string) =>
      vocab.tokens[vocab.translation[vocab.tokens.indexOf(token)] as number];
    expect(translate('你好')).toBe('▁hello');
    expect(translate('世界')).toBe('▁world');
    expect(translate('，')).toBe(',');
    expect(translate('？')).toBe('?');
    expect(translate('</s>')).toBe('</s>');
  });

  it('translates target-only tokens and <unk> to <unk>, never to a word', () => {
    const vocab = buildVocab(ZH_EN_LEXICON);
    expect(vocab.translation[vocab.tokens.indexOf('▁hello')]).toBe(vocab.unkId);
    expect(vocab.translation[vocab.unkId]).toBe(vocab.unkId);
  });

  it('has at least 30 entries in the built-in zh-en lexicon', () => {
    expect(ZH_EN_LEXICON.entries.length).toBeGreaterThanOrEqual(30);
  });

  it('refuses a source listed twice, a source with a space, and upper case in a lower-casing lexicon', () => {
    expect(() =>
      buildVocab(
        lexicon([
          ['a', 'b'],
          ['a', 'c'],
        ]),
      ),
    ).toThrow(/twice/);
    expect(() => buildVocab(lexicon([['a b', 'c']]))).toThrow(/not one token/);
    expect(() => buildVocab(lexicon([['A', 'b']], true))).toThrow(/lower case/);
  });
});

describe('targetToken', () => {
  it('marks words with ▁ and leaves punctuation bare', () => {
    expect(targetToken('hello')).toBe('▁hello');
    expect(targetToken(',')).toBe(',');
    expect(targetToken('?')).toBe('?');
  });
});
