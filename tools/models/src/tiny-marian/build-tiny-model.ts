import { jsonFile as json, writeModelFolder, type BuildResult } from '../shared/model-folder.js';
import { decoderModel, mergedDecoderModel } from './decoder-graph.js';
import { encoderModel } from './encoder-graph.js';
import { ZH_EN_LEXICON, type Lexicon } from './lexicon.js';
import { configJson, generationConfigJson } from './model-config.js';
import { tokenizerConfigJson, tokenizerJson } from './tokenizer-json.js';
import { buildVocab } from './vocab.js';
import { buildWeights } from './weights.js';

export { STAMP_FILE, filesHash, type BuildResult } from '../shared/model-folder.js';

export interface TinyModelOptions {
  /** The word list; default zh -> en. */
  readonly lexicon?: Lexicon;
  /**
   * `plain` writes `onnx/decoder_model.onnx` (no cache); `merged` writes Optimum's
   * `onnx/decoder_model_merged.onnx` with the past_key_values interface. Default `plain`.
   */
  readonly decoder?: 'plain' | 'merged';
  /** Longest input, in tokens including `</s>`, and longest output. Default 128. */
  readonly maxPositions?: number;
}

const DECODER_FILES = ['onnx/decoder_model.onnx', 'onnx/decoder_model_merged.onnx'];

/** Every file of a tiny model by its path inside the model folder. Pure and deterministic. */
export function tinyModelFiles(options: TinyModelOptions = {}): Map<string, Uint8Array> {
  const lexicon = options.lexicon ?? ZH_EN_LEXICON;
  const vocab = buildVocab(lexicon);
  const weights = buildWeights(vocab, options.maxPositions ?? 128);
  const decoder =
    options.decoder === 'merged'
      ? (['onnx/decoder_model_merged.onnx', mergedDecoderModel(weights)] as const)
      : (['onnx/decoder_model.onnx', decoderModel(weights)] as const);
  return new Map<string, Uint8Array>([
    ['config.json', json(configJson(lexicon, vocab, weights))],
    ['generation_config.json', json(generationConfigJson(vocab, weights))],
    ['tokenizer.json', json(tokenizerJson(vocab, lexicon))],
    ['tokenizer_config.json', json(tokenizerConfigJson(lexicon, weights.maxPositions))],
    ['onnx/encoder_model.onnx', encoderModel(weights)],
    decoder,
  ]);
}

/** Builds a tiny model into `outDir`; skipped when the folder already holds this build (writeModelFolder). */
export async function buildTinyModel(outDir: string, options: TinyModelOptions = {}): Promise<BuildResult> {
  // A decoder of the other layout from an earlier build would be picked up by the engine: remove it.
  return writeModelFolder(outDir, tinyModelFiles(options), DECODER_FILES);
}
