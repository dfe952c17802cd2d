import type { onnx } from 'onnx-proto';

import {
  FLOAT,
  INT64,
  encodeModel,
  floatTensor,
  int64Tensor,
  node,
  valueInfo,
} from '../shared/onnx-graph.js';
import { NLI_LABELS, type NliWeights } from './weights.js';

export const TINY_NLI_PRODUCER = '@tp/models tiny-nli';

export interface NliGraphOptions {
  /**
   * Take `token_type_ids` (as BERT exports do) and read the segments from it; otherwise (as mDeBERTa
   * exports do) the graph finds them itself: everything before the first [SEP] is the premise.
   */
  readonly tokenTypeIds?: boolean;
}

const DIMS = ['batch_size', 'sequence_length'] as const;

/**
 * `onnx/model.onnx` with the interface of an Optimum sequence-classification export: input_ids and
 * attention_mask [batch, seq] in, logits [batch, 3] out. For each pair:
 *   premise concepts p (one flag per concept; the safe ones set when no unsafe one is named),
 *   hypothesis concepts h, overlap = p . h, missing = sum(h) - overlap,
 *   logits = [overlap, missing] x head + bias.
 */
export function nliModel(weights: NliWeights, options: NliGraphOptions = {}): Uint8Array {
  const { vocabSize, conceptCount } = weights;
  const inputs = [valueInfo('input_ids', INT64, DIMS), valueInfo('attention_mask', INT64, DIMS)];
  if (options.tokenTypeIds) inputs.push(valueInfo('token_type_ids', INT64, DIMS));
  return encodeModel({
    name: 'tiny_nli',
    producer: TINY_NLI_PRODUCER,
    doc: 'Toy NLI classifier built by @tp/models: entailment grows with the concepts premise and hypothesis share.',
    inputs,
    outputs: [valueInfo('logits', FLOAT, [DIMS[0], NLI_LABELS.length])],
    initializers: [
      floatTensor('concept_table', [vocabSize, conceptCount], weights.conceptTable),
      floatTensor('unsafe_columns', [conceptCount], weights.unsafeColumns),
      floatTensor('safe_columns', [conceptCount], weights.safeColumns),
      floatTensor('head', [2, NLI_LABELS.length], weights.head),
      floatTensor('head_bias', [NLI_LABELS.length], weights.headBias),
      floatTensor('one_f', [], Float32Array.of(1)),
      int64Tensor('concept_axis', [1], [1]),
      int64Tensor('last_axis', [1], [-1]),
      // Only what the chosen segment nodes use: onnxruntime warns about unused initializers.
      ...(options.tokenTypeIds
        ? [int64Tensor('zero', [], [0]), int64Tensor('one', [], [1])]
        : [
            floatTensor('zero_f', [], Float32Array.of(0)),
            int64Tensor('sep_id', [], [weights.sepId]),
            int64Tensor('seq_axis_scalar', [], [1]),
          ]),
    ],
    nodes: [
      node('Cast', ['attention_mask'], ['mask'], { to: FLOAT }),
      ...(options.tokenTypeIds ? segmentsFromTokenTypes() : segmentsFromSeparator()),
      node('Mul', ['premise_raw', 'mask'], ['in_premise']),
      node('Mul', ['hypothesis_raw', 'mask'], ['in_hypothesis']),
      node('Gather', ['concept_table', 'input_ids'], ['token_concepts']),
      ...conceptsOf('in_premise', 'premise_found'),
      ...conceptsOf('in_hypothesis', 'hypothesis_concepts'),
      // A premise is about the safe concepts exactly when it names no unsafe one.
      node('Mul', ['premise_found', 'unsafe_columns'], ['premise_unsafe']),
      node('ReduceMax', ['premise_unsafe'], ['any_unsafe'], { axes: [1], keepdims: 1 }),
      node('Sub', ['one_f', 'any_unsafe'], ['no_unsafe']),
      node('Mul', ['no_unsafe', 'safe_columns'], ['premise_safe']),
      node('Add', ['premise_unsafe', 'premise_safe'], ['premise_concepts']),
      node('Mul', ['premise_concepts', 'hypothesis_concepts'], ['shared']),
      node('ReduceSum', ['shared', 'concept_axis'], ['overlap'], { keepdims: 1 }),
      node('ReduceSum', ['hypothesis_concepts', 'concept_axis'], ['named'], { keepdims: 1 }),
      node('Sub', ['named', 'overlap'], ['missing']),
      node('Concat', ['overlap', 'missing'], ['features'], { axis: 1 }),
      node('MatMul', ['features', 'head'], ['scaled']),
      node('Add', ['scaled', 'head_bias'], ['logits']),
    ],
  });
}

/** [CLS] premise [SEP] hypothesis [SEP]: the count of [SEP] up to a position is 0 in the premise, 1 after. */
function segmentsFromSeparator(): onnx.INodeProto[] {
  return [
    node('Equal', ['input_ids', 'sep_id'], ['is_sep']),
    node('Cast', ['is_sep'], ['is_sep_f'], { to: FLOAT }),
    node('CumSum', ['is_sep_f', 'seq_axis_scalar'], ['segment']),
    node('Equal', ['segment', 'zero_f'], ['premise_bool']),
    node('Cast', ['premise_bool'], ['premise_raw'], { to: FLOAT }),
    node('Equal', ['segment', 'one_f'], ['hypothesis_bool']),
    node('Cast', ['hypothesis_bool'], ['hypothesis_raw'], { to: FLOAT }),
  ];
}

function segmentsFromTokenTypes(): onnx.INodeProto[] {
  return [
    node('Equal', ['token_type_ids', 'zero'], ['premise_bool']),
    node('Cast', ['premise_bool'], ['premise_raw'], { to: FLOAT }),
    node('Equal', ['token_type_ids', 'one'], ['hypothesis_bool']),
    node('Cast', ['hypothesis_bool'], ['hypothesis_raw'], { to: FLOAT }),
  ];
}

/** [batch, concepts]: 1 where a token of the segment names the concept. */
function conceptsOf(segment: string, output: string): onnx.INodeProto[] {
  return [
    node('Unsqueeze', [segment, 'last_axis'], [`${segment}_column`]),
    node('Mul', ['token_concepts', `${segment}_column`], [`${segment}_hits`]),
    node('ReduceMax', [`${segment}_hits`], [output], { axes: [1], keepdims: 0 }),
  ];
}
