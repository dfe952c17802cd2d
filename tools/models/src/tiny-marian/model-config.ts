import { TEST_MODEL_MARKER } from '../shared/test-model.js';
import type { Lexicon } from './lexicon.js';
import type { TinyVocab } from './vocab.js';
import type { TinyWeights } from './weights.js';

export { TEST_MODEL_MARKER };

/** `config.json` with the Marian fields the offline engine and transformers.js read. */
export function configJson(lexicon: Lexicon, vocab: TinyVocab, weights: TinyWeights): object {
  return {
    [TEST_MODEL_MARKER]: true,
    _tp_description:
      `Lexicon toy model built by @tp/models (tools/models/src/tiny-marian), not a trained translator: ` +
      `it maps ${lexicon.source} tokens to ${lexicon.target} tokens one by one from a fixed word list ` +
      `(docs/models.md) and outputs <unk> for anything else. For tests and offline demos only.`,
    _name_or_path: `tp/opus-mt-${lexicon.source}-${lexicon.target}-tiny`,
    architectures: ['MarianMTModel'],
    model_type: 'marian',
    is_encoder_decoder: true,
    vocab_size: vocab.tokens.length,
    decoder_vocab_size: vocab.tokens.length,
    d_model: weights.dModel,
    encoder_layers: 1,
    decoder_layers: 1,
    encoder_attention_heads: 1,
    decoder_attention_heads: 1,
    max_position_embeddings: weights.maxPositions,
    max_length: weights.maxPositions,
    bos_token_id: vocab.eosId,
    eos_token_id: vocab.eosId,
    forced_eos_token_id: vocab.eosId,
    pad_token_id: vocab.padId,
    decoder_start_token_id: vocab.padId,
    bad_words_ids: [[vocab.padId]],
    num_beams: 1,
    use_cache: true,
  };
}

export function generationConfigJson(vocab: TinyVocab, weights: TinyWeights): object {
  return {
    bad_words_ids: [[vocab.padId]],
    bos_token_id: vocab.eosId,
    decoder_start_token_id: vocab.padId,
    eos_token_id: vocab.eosId,
    forced_eos_token_id: vocab.eosId,
    max_length: weights.maxPositions,
    num_beams: 1,
    pad_token_id: vocab.padId,
  };
}
