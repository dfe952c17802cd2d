import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { decoderModel, mergedDecoderModel } from './decoder-graph.js';
import { encoderModel } from './encoder-graph.js';
import { ZH_EN_LEXICON, type Lexicon } from './lexicon.js';
import { configJson, generationConfigJson } from './model-config.js';
import { tokenizerConfigJson, tokenizerJson } from './tokenizer-json.js';
import { buildVocab } from './vocab.js';
import { buildWeights } from './weights.js';

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

/** Written last, so its presence means the rest of the build is complete. */
export const STAMP_FILE = '.tp-build-hash';

const DECODER_FILES = ['onnx/decoder_model.onnx', 'onnx/decoder_model_merged.onnx'];

const json = (value: object) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

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

/** sha256 over the sorted paths and contents: the build's identity. */
export function filesHash(files: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const path of [...files.keys()].sort()) {
    hash.update(`${path}\0`);
    hash.update(files.get(path) as Uint8Array);
    hash.update('\0');
  }
  return hash.digest('hex');
}

export interface BuildResult {
  readonly outDir: string;
  readonly hash: string;
  /** True when the folder already held this exact build and nothing was written. */
  readonly skipped: boolean;
  readonly files: readonly string[];
}

/**
 * Builds a tiny model into `outDir` (created if needed). Skips writing when the folder's stamp already
 * names this build and its files are all there. Each file is written to a temporary name and renamed,
 * so a reader never sees half a file.
 */
export async function buildTinyModel(outDir: string, options: TinyModelOptions = {}): Promise<BuildResult> {
  const files = tinyModelFiles(options);
  const hash = filesHash(files);
  const paths = [...files.keys()];
  if (await isUpToDate(outDir, hash, paths)) return { outDir, hash, skipped: true, files: paths };
  // No stamp while writing: an interrupted build is rebuilt next time, never trusted.
  await rm(join(outDir, STAMP_FILE), { force: true });
  // A decoder of the other layout from an earlier build would be picked up by the engine: remove it.
  for (const path of DECODER_FILES.filter((path) => !files.has(path))) {
    await rm(join(outDir, path), { force: true });
  }
  for (const [path, bytes] of files) await writeAtomically(join(outDir, path), bytes);
  await writeAtomically(join(outDir, STAMP_FILE), new TextEncoder().encode(`${hash}\n`));
  return { outDir, hash, skipped: false, files: paths };
}

async function isUpToDate(outDir: string, hash: string, paths: readonly string[]): Promise<boolean> {
  const stamp = await readFile(join(outDir, STAMP_FILE), 'utf8').catch(() => '');
  if (stamp.trim() !== hash) return false;
  const present = await Promise.all(
    paths.map((path) =>
      stat(join(outDir, path)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return present.every(Boolean);
}

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}
