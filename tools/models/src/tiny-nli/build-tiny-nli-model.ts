import { jsonFile, writeModelFolder, type BuildResult } from '../shared/model-folder.js';
import { CONCEPTS, type Concept } from './concepts.js';
import { configJson, tokenizerConfigJson, tokenizerJson } from './model-config.js';
import { nliModel } from './nli-graph.js';
import { buildNliVocab } from './vocab.js';
import { buildNliWeights } from './weights.js';

export interface TinyNliOptions {
  /** What the model recognises; default CONCEPTS. */
  readonly concepts?: readonly Concept[];
  /** Add a `token_type_ids` input (BERT-like exports) and take the segments from it. Default false. */
  readonly tokenTypeIds?: boolean;
  /** `model_max_length`: the longest pair in tokens, specials included. Default 128. */
  readonly maxLength?: number;
}

/** Every file of a tiny NLI model by its path inside the model folder. Pure and deterministic. */
export function tinyNliModelFiles(options: TinyNliOptions = {}): Map<string, Uint8Array> {
  const concepts = options.concepts ?? CONCEPTS;
  const maxLength = options.maxLength ?? 128;
  const vocab = buildNliVocab(concepts);
  const weights = buildNliWeights(vocab, concepts);
  return new Map<string, Uint8Array>([
    ['config.json', jsonFile(configJson(vocab, maxLength))],
    ['tokenizer.json', jsonFile(tokenizerJson(vocab))],
    ['tokenizer_config.json', jsonFile(tokenizerConfigJson(maxLength))],
    ['onnx/model.onnx', nliModel(weights, { tokenTypeIds: options.tokenTypeIds ?? false })],
  ]);
}

/** Builds a tiny NLI model into `outDir`; skipped when the folder already holds this build. */
export function buildTinyNliModel(outDir: string, options: TinyNliOptions = {}): Promise<BuildResult> {
  // A quantized file left by another model would be preferred by the loader over ours.
  return writeModelFolder(outDir, tinyNliModelFiles(options), ['onnx/model_quantized.onnx']);
}
