import type { Lexicon } from './lexicon.js';
import { EOS, PAD, UNK, WORD_MARK, type TinyVocab } from './vocab.js';

/**
 * A `tokenizer.json` in the Hugging Face format, readable by `@huggingface/tokenizers` and the Rust
 * crate. Input is split on whitespace with punctuation isolated; a Unigram model with equal scores
 * then cuts each piece into the fewest listed tokens, so a run of Chinese characters splits into
 * lexicon words and an unlisted character becomes `<unk>`. `</s>` is appended as Marian does. The
 * Metaspace decoder turns `▁hello` `,` `▁world` into `hello, world`.
 */
export function tokenizerJson(vocab: TinyVocab, lexicon: Lexicon): object {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(vocab.eosId, EOS), special(vocab.unkId, UNK), special(vocab.padId, PAD)],
    normalizer: lexicon.lowercase ? { type: 'Lowercase' } : null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Punctuation', behavior: 'Isolated' }],
    },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: EOS, type_id: 0 } }],
      pair: [
        { Sequence: { id: 'A', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } },
        { SpecialToken: { id: EOS, type_id: 0 } },
      ],
      special_tokens: { [EOS]: { id: EOS, ids: [vocab.eosId], tokens: [EOS] } },
    },
    decoder: { type: 'Metaspace', replacement: WORD_MARK, prepend_scheme: 'always', split: true },
    model: {
      type: 'Unigram',
      unk_id: vocab.unkId,
      byte_fallback: false,
      // Equal scores make the segmentation prefer fewer, longer tokens (你好 over 你 + 好).
      vocab: vocab.tokens.map((token, id) => [token, id === vocab.unkId ? 0 : -1]),
    },
  };
}

/** `tokenizer_config.json`, as the Xenova/opus-mt-* repositories ship it. */
export function tokenizerConfigJson(lexicon: Lexicon, maxLength: number): object {
  return {
    tokenizer_class: 'MarianTokenizer',
    source_lang: lexicon.source,
    target_lang: lexicon.target,
    eos_token: EOS,
    unk_token: UNK,
    pad_token: PAD,
    model_max_length: maxLength,
    clean_up_tokenization_spaces: true,
  };
}
