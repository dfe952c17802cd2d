import type { onnx } from 'onnx-proto';

import {
  BOOL,
  FLOAT,
  INT64,
  encodeModel,
  floatTensor,
  int64Tensor,
  node,
  valueInfo,
} from '../shared/onnx-graph.js';
import { TINY_MARIAN_PRODUCER, type TinyWeights } from './weights.js';

/**
 * The decoder ignores which tokens it has produced and uses only how many: decoder position t asks for
 * source position t (a large-scaled dot product of position one-hots, then Softmax), and the attended
 * source token's one-hot times the lexicon matrix gives the logits. Padded source positions get -10000.
 */
function attentionNodes(startName: string): onnx.INodeProto[] {
  return [
    node('Shape', ['input_ids'], ['ids_shape']),
    node('Gather', ['ids_shape', 'one'], ['new_len']),
    node('Add', [startName, 'new_len'], ['end']),
    node('Range', [startName, 'end', 'one'], ['positions']),
    node('Gather', ['position_query', 'positions'], ['queries']),
    node('Transpose', ['encoder_hidden_states'], ['keys_t'], { perm: [0, 2, 1] }),
    node('MatMul', ['queries', 'keys_t'], ['scores']),
    node('Cast', ['encoder_attention_mask'], ['mask_float'], { to: FLOAT }),
    node('Sub', ['mask_float', 'one_float'], ['mask_shifted']),
    node('Mul', ['mask_shifted', 'mask_penalty'], ['mask_bias']),
    node('Unsqueeze', ['mask_bias', 'axis_1'], ['mask_bias_rows']),
    node('Add', ['scores', 'mask_bias_rows'], ['masked_scores']),
    node('Softmax', ['masked_scores'], ['attention'], { axis: -1 }),
    node('MatMul', ['attention', 'encoder_hidden_states'], ['context']),
    node('MatMul', ['context', 'lexicon'], ['logits']),
  ];
}

function commonInitializers(weights: TinyWeights): onnx.ITensorProto[] {
  return [
    floatTensor('position_query', [weights.maxPositions, weights.dModel], weights.positionQuery),
    floatTensor('lexicon', [weights.dModel, weights.vocabSize], weights.lexicon),
    floatTensor('one_float', [], new Float32Array([1])),
    floatTensor('mask_penalty', [], new Float32Array([10000])),
    int64Tensor('one', [], [1]),
    int64Tensor('axis_1', [1], [1]),
  ];
}

const ENCODER_DIMS = ['batch_size', 'encoder_sequence_length'] as const;
const DECODER_DIMS = ['batch_size', 'decoder_sequence_length'] as const;

function commonInputs(weights: TinyWeights) {
  return [
    valueInfo('encoder_attention_mask', INT64, ENCODER_DIMS),
    valueInfo('input_ids', INT64, DECODER_DIMS),
    valueInfo('encoder_hidden_states', FLOAT, [...ENCODER_DIMS, weights.dModel]),
  ];
}

/** `decoder_model.onnx`: no cache, the caller re-runs it with the whole sequence so far. */
export function decoderModel(weights: TinyWeights): Uint8Array {
  return encodeModel({
    name: 'tiny_marian_decoder',
    producer: TINY_MARIAN_PRODUCER,
    doc: 'Toy lexicon decoder built by @tp/models: position-matching attention, then a lexicon matrix.',
    inputs: commonInputs(weights),
    outputs: [valueInfo('logits', FLOAT, [...DECODER_DIMS, weights.vocabSize])],
    initializers: [...commonInitializers(weights), int64Tensor('zero', [], [0])],
    nodes: attentionNodes('zero'),
  });
}

/**
 * `decoder_model_merged.onnx` with Optimum's cache interface for one layer and one head of width d:
 * past_key_values.0.{decoder,encoder}.{key,value} and use_cache_branch in, present.* out. With the
 * cache branch on, positions continue after the cached length, so the caller feeds only the new token.
 */
export function mergedDecoderModel(weights: TinyWeights): Uint8Array {
  const d = weights.dModel;
  const past = (kind: 'decoder' | 'encoder', part: 'key' | 'value') =>
    valueInfo(`past_key_values.0.${kind}.${part}`, FLOAT, [
      'batch_size',
      1,
      kind === 'decoder' ? 'past_decoder_sequence_length' : 'encoder_sequence_length_out',
      d,
    ]);
  const present = (kind: 'decoder' | 'encoder', part: 'key' | 'value') =>
    valueInfo(`present.0.${kind}.${part}`, FLOAT, [
      'batch_size',
      1,
      kind === 'decoder' ? 'present_decoder_sequence_length' : 'encoder_sequence_length_out',
      d,
    ]);
  return encodeModel({
    name: 'tiny_marian_decoder_merged',
    producer: TINY_MARIAN_PRODUCER,
    doc: 'Toy lexicon decoder with an Optimum-style merged cache interface, built by @tp/models.',
    inputs: [
      ...commonInputs(weights),
      past('decoder', 'key'),
      past('decoder', 'value'),
      past('encoder', 'key'),
      past('encoder', 'value'),
      valueInfo('use_cache_branch', BOOL, [1]),
    ],
    outputs: [
      valueInfo('logits', FLOAT, [...DECODER_DIMS, weights.vocabSize]),
      present('decoder', 'key'),
      present('decoder', 'value'),
      present('encoder', 'key'),
      present('encoder', 'value'),
    ],
    initializers: [
      ...commonInitializers(weights),
      int64Tensor('two', [], [2]),
      int64Tensor('axis_0', [1], [0]),
    ],
    nodes: [
      // start = use_cache_branch ? cached length : 0
      node('Shape', ['past_key_values.0.decoder.key'], ['past_shape']),
      node('Gather', ['past_shape', 'two'], ['past_len']),
      node('Cast', ['use_cache_branch'], ['use_cache_int'], { to: INT64 }),
      node('Squeeze', ['use_cache_int', 'axis_0'], ['use_cache_scalar']),
      node('Mul', ['use_cache_scalar', 'past_len'], ['start']),
      ...attentionNodes('start'),
      // The cache holds the attended states; the toy never reads them back, but their shapes grow as a
      // real model's do, so the caller's cache handling is exercised.
      node('Unsqueeze', ['context', 'axis_1'], ['context_heads']),
      node('Concat', ['past_key_values.0.decoder.key', 'context_heads'], ['present.0.decoder.key'], {
        axis: 2,
      }),
      node('Concat', ['past_key_values.0.decoder.value', 'context_heads'], ['present.0.decoder.value'], {
        axis: 2,
      }),
      node('Unsqueeze', ['encoder_hidden_states', 'axis_1'], ['encoder_heads']),
      node('Identity', ['encoder_heads'], ['present.0.encoder.key']),
      node('Identity', ['encoder_heads'], ['present.0.encoder.value']),
    ],
  });
}
