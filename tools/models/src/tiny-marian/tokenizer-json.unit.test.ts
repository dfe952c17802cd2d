import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from '@jest/globals';

import { EN_DE_LEXICON, ZH_EN_LEXICON, type Lexicon } from './lexicon.js';
import { tokenizerConfigJson, tokenizerJson } from './tokenizer-json.js';
import { buildVocab } from './vocab.js';

function tokenizerFor(lexicon: Lexicon) {
  const vocab = buildVocab(lexicon);
  return new Tokenizer(tokenizerJson(vocab, lexicon), tokenizerConfigJson(lexicon, 128));
}

describe('tiny tokenizer.json', () => {
  it('cuts Chinese into the longest lexicon words and appends </s>', () => {
    expect(tokenizerFor(ZH_EN_LEXICON).encode('你好，世界').tokens).toEqual(['你好', '，', '世界', '</s>']);
  });

  it('prefers one listed word over two shorter ones (你好, not 你 + 好)', () => {
    expect(tokenizerFor(ZH_EN_LEXICON).tokenize('你好')).toEqual(['你好']);
  });

  it('gives <unk> for a character outside the lexicon', () => {
    const tokenizer = tokenizerFor(ZH_EN_LEXICON);
    const { ids } = tokenizer.encode('你好吗');
    expect(ids).toEqual([
      tokenizer.token_to_id('你好'),
      tokenizer.token_to_id('<unk>'),
      tokenizer.token_to_id('</s>'),
    ]);
  });

  it('splits English on spaces, isolates punctuation and lower-cases for the en-de lexicon', () => {
    expect(tokenizerFor(EN_DE_LEXICON).tokenize('Hello, world!')).toEqual(['hello', ',', 'world', '!']);
  });

  it('decodes ▁hello , ▁world to "hello, world" and drops special tokens', () => {
    const tokenizer = tokenizerFor(ZH_EN_LEXICON);
    const ids = ['▁hello', ',', '▁world', '</s>'].map((token) => tokenizer.token_to_id(token) as number);
    expect(tokenizer.decode(ids, { skip_special_tokens: true })).toBe('hello, world');
  });
});
