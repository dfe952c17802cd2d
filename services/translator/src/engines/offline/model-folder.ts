import { fromOpusCode } from './languages.js';

export interface LanguagePair {
  /** Our language codes. */
  readonly source: string;
  readonly target: string;
}

/**
 * The pair a model folder translates, from its name: `opus-mt-<src>-<tgt>` with any suffix
 * (`-tiny`, `-int8`), and Helsinki's `opus-mt-tc-big-<src>-<tgt>`. Undefined for other names and for
 * language groups (`opus-mt-en-mul`).
 */
export function parseModelFolderName(name: string): LanguagePair | undefined {
  // not user text: the names of installed model folders
  const match = /^opus-mt-(?:tc-big-)?([a-z]{2,3})-([a-z]{2,3})(?:-.+)?$/i.exec(name);
  if (!match) return undefined;
  const source = fromOpusCode(match[1] as string);
  const target = fromOpusCode(match[2] as string);
  return source && target && source !== target ? { source, target } : undefined;
}

export interface OnnxFiles {
  /** File names inside the model's `onnx/` folder. */
  readonly encoder: string;
  readonly decoder: string;
}

/** Quantized files first (a quarter of the size, close in quality), then full precision. */
const ENCODER_PREFERENCE = ['encoder_model_quantized.onnx', 'encoder_model.onnx'];
/**
 * Merged decoders keep a cache, so each step feeds one token instead of the whole output so far.
 * `decoder_with_past_model*` needs a cache from the first step on and cannot start a sentence alone.
 */
const DECODER_PREFERENCE = [
  'decoder_model_merged_quantized.onnx',
  'decoder_model_quantized.onnx',
  'decoder_model_merged.onnx',
  'decoder_model.onnx',
];

/**
 * Picks the encoder and decoder from the files of an `onnx/` folder; other variants (`_fp16`, `_q4`)
 * only when none of the preferred names is there. Undefined when either is missing.
 */
export function pickOnnxFiles(fileNames: readonly string[]): OnnxFiles | undefined {
  const onnx = fileNames.filter((name) => name.endsWith('.onnx')).sort();
  const pick = (preferred: readonly string[], prefix: string) =>
    preferred.find((name) => onnx.includes(name)) ??
    onnx.find((name) => name.startsWith(prefix) && !name.startsWith('decoder_with_past'));
  const encoder = pick(ENCODER_PREFERENCE, 'encoder');
  const decoder = pick(DECODER_PREFERENCE, 'decoder');
  return encoder && decoder ? { encoder, decoder } : undefined;
}
