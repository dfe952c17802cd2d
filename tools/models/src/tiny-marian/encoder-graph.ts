import {
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
 * `encoder_model.onnx` with Optimum's names: input_ids and attention_mask [batch, seq] in,
 * last_hidden_state [batch, seq, d] out. hidden = (token one-hot + position one-hot) * mask.
 */
export function encoderModel(weights: TinyWeights): Uint8Array {
  const { vocabSize, maxPositions, dModel } = weights;
  const ids = ['batch_size', 'encoder_sequence_length'] as const;
  return encodeModel({
    name: 'tiny_marian_encoder',
    producer: TINY_MARIAN_PRODUCER,
    doc: 'Toy lexicon encoder built by @tp/models: one-hot token and position embeddings.',
    inputs: [valueInfo('input_ids', INT64, ids), valueInfo('attention_mask', INT64, ids)],
    outputs: [valueInfo('last_hidden_state', FLOAT, [...ids, dModel])],
    initializers: [
      floatTensor('embed_tokens', [vocabSize, dModel], weights.tokenEmbedding),
      floatTensor('embed_positions', [maxPositions, dModel], weights.positionEmbedding),
      int64Tensor('zero', [], [0]),
      int64Tensor('one', [], [1]),
      int64Tensor('last_axis', [1], [-1]),
    ],
    nodes: [
      node('Shape', ['input_ids'], ['ids_shape']),
      node('Gather', ['ids_shape', 'one'], ['seq_len']),
      node('Range', ['zero', 'seq_len', 'one'], ['positions']),
      node('Gather', ['embed_tokens', 'input_ids'], ['token_states']),
      node('Gather', ['embed_positions', 'positions'], ['position_states']),
      node('Add', ['token_states', 'position_states'], ['states']),
      node('Cast', ['attention_mask'], ['mask_float'], { to: FLOAT }),
      node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_column']),
      node('Mul', ['states', 'mask_column'], ['last_hidden_state']),
    ],
  });
}
