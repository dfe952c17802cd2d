import { TEST_MODEL_MARKER } from '../shared/test-model.js';
import { CLS, PAD, SEP, UNK, type NliVocab } from './vocab.js';
import { NLI_LABELS } from './weights.js';

/**
 * A BERT-style `tokenizer.json` that `@huggingface/tokenizers` and the Rust crate read: the BERT
 * normalizer (lower case, accents stripped, a space around every CJK character), the BERT
 * pre-tokenizer (whitespace and punctuation), WordPiece over whole words (a word not listed is
 * [UNK]), and the pair template `[CLS] A [SEP] B [SEP]` with type ids 0 then 1.
 */
export function tokenizerJson(vocab: NliVocab): object {
  const special = (content: string) => ({
    id: vocab.tokens.indexOf(content),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const token = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });
  const sequence = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [PAD, UNK, CLS, SEP].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [token(CLS, 0), sequence('A', 0), token(SEP, 0)],
      pair: [token(CLS, 0), sequence('A', 0), token(SEP, 0), sequence('B', 1), token(SEP, 1)],
      special_tokens: {
        [CLS]: { id: CLS, ids: [vocab.clsId], tokens: [CLS] },
        [SEP]: { id: SEP, ids: [vocab.sepId], tokens: [SEP] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: UNK,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.tokens.map((word, id) => [word, id])),
    },
  };
}

export function tokenizerConfigJson(maxLength: number): object {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    cls_token: CLS,
    sep_token: SEP,
    pad_token: PAD,
    unk_token: UNK,
    model_max_length: maxLength,
    clean_up_tokenization_spaces: true,
  };
}

/** `config.json` with the fields an NLI loader reads: the label order, the pad id and the length limit. */
export function configJson(vocab: NliVocab, maxLength: number): object {
  return {
    [TEST_MODEL_MARKER]: true,
    _tp_description:
      'Keyword toy NLI model built by @tp/models (tools/models/src/tiny-nli), not a trained classifier: ' +
      'entailment grows with the concepts (violence, hate, sexual, harassment, self-harm, spam, safe) that ' +
      'premise and hypothesis both name, from a fixed word list (docs/models.md). For tests and offline demos only.',
    _name_or_path: 'tp/tiny-nli',
    architectures: ['TinyNliForSequenceClassification'],
    model_type: 'tp-tiny-nli',
    id2label: Object.fromEntries(NLI_LABELS.map((label, id) => [String(id), label])),
    label2id: Object.fromEntries(NLI_LABELS.map((label, id) => [label, id])),
    vocab_size: vocab.tokens.length,
    max_position_embeddings: maxLength,
    pad_token_id: vocab.padId,
    type_vocab_size: 2,
  };
}
