import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

import { parseModelSettings, pickOnnxFile, type ModelSettings } from './model-settings.js';
import { PairEncoder, padBatch } from './pair-encoder.js';

/** What status pages and cache keys say about the loaded model. */
export interface ModelInfo {
  /** The folder name, e.g. `mdeberta-v3-base-xnli-multilingual-nli-2mil7`. */
  readonly id: string;
  readonly dir: string;
  /** The graph in use, inside `onnx/`. */
  readonly file: string;
  readonly testModel: boolean;
  /**
   * Changes when the model's files do (config.json contents, graph and tokenizer sizes), so cached
   * results of a replaced model are not served under the same folder name.
   */
  readonly fingerprint: string;
}

/** A test model was found but the settings do not allow one. */
export class TestModelRefusedError extends Error {
  override readonly name = 'TestModelRefusedError';
}

const INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/**
 * One NLI sequence-classification model (an Optimum export: config.json, tokenizer.json,
 * onnx/model_quantized.onnx or onnx/model.onnx): pairs in, one row of logits per pair out, all pairs
 * in a single onnxruntime run.
 */
export class NliModel {
  private constructor(
    readonly info: ModelInfo,
    readonly settings: ModelSettings,
    private readonly encoder: PairEncoder,
    private readonly session: ort.InferenceSession,
    private readonly padId: number,
    private readonly output: string,
  ) {}

  /**
   * Loads the model in `dir`. Refuses a model marked `_tp_test_model` unless `allowTestModel`, and any
   * model whose inputs, outputs or labels this service cannot use: better not ready than wrong.
   */
  static async load(dir: string, options: { readonly allowTestModel: boolean }): Promise<NliModel> {
    const configBytes = await readFile(join(dir, 'config.json'));
    const tokenizerConfig = await readJson(join(dir, 'tokenizer_config.json'), {});
    const settings = parseModelSettings(JSON.parse(configBytes.toString('utf8')), tokenizerConfig);
    if (settings.testModel && !options.allowTestModel) {
      throw new TestModelRefusedError(
        `${dir} holds a test model (config.json has _tp_test_model): a keyword toy, not a classifier. ` +
          'Set ALLOW_TEST_MODELS=true to load it anyway, or install the real one with `npm run models:pull -- nli`',
      );
    }
    const file = pickOnnxFile(await readdir(join(dir, 'onnx')).catch(() => []));
    if (!file) throw new Error(`${dir}/onnx has neither model_quantized.onnx nor model.onnx`);
    const tokenizerPath = join(dir, 'tokenizer.json');
    const tokenizer = new Tokenizer(await readJson(tokenizerPath), tokenizerConfig);
    const session = await ort.InferenceSession.create(join(dir, 'onnx', file), { logSeverityLevel: 3 });
    try {
      const unknown = session.inputNames.filter((name) => !INPUTS.has(name));
      if (unknown.length > 0) {
        throw new Error(`the model asks for inputs this service cannot feed: ${unknown.join(', ')}`);
      }
      // Optimum names it `logits`; a single unnamed-looking output is taken as the logits too.
      const output = session.outputNames.includes('logits')
        ? 'logits'
        : session.outputNames.length === 1
          ? session.outputNames[0]
          : undefined;
      if (output === undefined) {
        throw new Error(`the model has no "logits" output (outputs: ${session.outputNames.join(', ')})`);
      }
      const padToken = record(tokenizerConfig).pad_token;
      const padId =
        settings.padId ?? (typeof padToken === 'string' ? tokenizer.token_to_id(padToken) : undefined) ?? 0;
      const sizes = await Promise.all([stat(join(dir, 'onnx', file)), stat(tokenizerPath)]);
      const fingerprint = createHash('sha256')
        .update(configBytes)
        .update(`\0${file}\0${sizes.map((s) => s.size).join('\0')}`)
        .digest('hex')
        .slice(0, 16);
      const info = { id: basename(dir), dir, file, testModel: settings.testModel, fingerprint };
      return new NliModel(
        info,
        settings,
        new PairEncoder(tokenizer, settings.maxLength),
        session,
        padId,
        output,
      );
    } catch (err) {
      await session.release();
      throw err;
    }
  }

  /** Logits [labels] for each hypothesis against `premise`, from one batched run. */
  async logits(premise: string, hypotheses: readonly string[]): Promise<number[][]> {
    if (hypotheses.length === 0) return [];
    const premiseTokens = this.encoder.tokens(premise);
    const batch = padBatch(
      hypotheses.map((hypothesis) => this.encoder.pair(premiseTokens, hypothesis)),
      this.padId,
    );
    const dims = [batch.batch, batch.width];
    const all: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', batch.inputIds, dims),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, dims),
      token_type_ids: new ort.Tensor('int64', batch.typeIds, dims),
    };
    // Only what the session lists: mDeBERTa exports have no token_type_ids, BERT ones do.
    const feeds = Object.fromEntries(this.session.inputNames.map((name) => [name, all[name] as ort.Tensor]));
    const result = (await this.session.run(feeds))[this.output];
    const width = this.settings.labels.length;
    if (
      !(result instanceof ort.Tensor) ||
      result.type !== 'float32' ||
      result.dims.join() !== `${batch.batch},${width}`
    ) {
      throw new Error(`the model did not return float32 logits [${batch.batch}, ${width}]`);
    }
    const data = result.data as Float32Array;
    return hypotheses.map((_, row) => Array.from(data.subarray(row * width, (row + 1) * width)));
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

async function readJson(path: string, fallback?: object): Promise<object> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as object;
  } catch (err) {
    if (fallback !== undefined && (err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw err;
  }
}
