import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

import { EngineError } from '../engine.js';
import {
  int64Matrix,
  isMergedDecoder,
  mergedDecoder,
  plainDecoder,
  type CacheShape,
  type DecoderRunner,
  type EncoderOutput,
} from './decoder-runner.js';
import type { InstalledModel } from './discover-models.js';
import { isLanguageToken, targetLanguageToken } from './languages.js';
import { greedyPick, parseModelSettings, type ModelSettings } from './model-settings.js';

interface Loaded {
  readonly tokenizer: Tokenizer;
  readonly settings: ModelSettings;
  readonly encoder: ort.InferenceSession;
  readonly decoder: ort.InferenceSession;
  readonly unkId: number | undefined;
  readonly specialIds: readonly number[];
  readonly languageTokens: readonly string[];
}

const rejected = (message: string, cause?: unknown) =>
  new EngineError('offline', 'rejected', message, undefined, cause === undefined ? undefined : { cause });

const readJson = async (path: string, fallback?: unknown): Promise<unknown> => {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    if (fallback !== undefined && (err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw err;
  }
};

/** A sentence waiting for the next batch: its input ids, and what to tell its caller. */
interface Waiting {
  readonly ids: readonly number[];
  resolve(output: number[]): void;
  reject(err: unknown): void;
}

/** Sentences that share one encoder run and one run per decoder step. */
const MAX_BATCH = 16;

/**
 * One installed Opus-MT model, loaded on first use: tokenizer from tokenizer.json, encoder run once,
 * then greedy decoding until `</s>` or max_length. Output containing `<unk>`, or no output, is a
 * failure: the tiny test models say `<unk>` for every word they do not know.
 *
 * Sentences asked for while a batch runs are decoded together in the next one (up to 16, padded,
 * with an attention mask), so concurrent requests cost about one run per step instead of one each.
 */
export class MarianModel {
  private loading: Promise<Loaded> | undefined;
  private readonly waiting: Waiting[] = [];
  private draining = false;

  constructor(
    readonly info: InstalledModel,
    private readonly sessionOptions: ort.InferenceSession.SessionOptions = {},
  ) {}

  get loaded(): boolean {
    return this.loading !== undefined;
  }

  /** Loads once; a failed load is forgotten so the next call tries again. */
  load(): Promise<Loaded> {
    this.loading ??= this.open().catch((err: unknown) => {
      this.loading = undefined;
      throw rejected(`model ${this.info.name} failed to load: ${(err as Error).message}`, err);
    });
    return this.loading;
  }

  async translate(text: string, target: string, signal: AbortSignal): Promise<string> {
    const model = await this.load();
    signal.throwIfAborted();
    const input = this.encodeInput(model, text, target);
    const output = await untilAborted(this.decode(model, input), signal);
    if (model.unkId !== undefined && output.includes(model.unkId)) {
      throw rejected(`model ${this.info.name} does not know part of the input (it produced <unk>)`);
    }
    const decoded =
      output.length > 0 ? model.tokenizer.decode(output, { skip_special_tokens: true }).trim() : '';
    if (decoded === '' || decoded.includes('<unk>')) {
      throw rejected(`model ${this.info.name} produced no usable output`);
    }
    return decoded;
  }

  async release(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    const model = await loading?.catch(() => undefined);
    await Promise.all([model?.encoder.release(), model?.decoder.release()]);
  }

  private async open(): Promise<Loaded> {
    const { dir, files } = this.info;
    const [tokenizerJson, tokenizerConfig, config, generationConfig] = await Promise.all([
      readJson(join(dir, 'tokenizer.json')),
      readJson(join(dir, 'tokenizer_config.json'), {}),
      readJson(join(dir, 'config.json')),
      readJson(join(dir, 'generation_config.json'), {}),
    ]);
    const tokenizer = new Tokenizer(tokenizerJson as object, tokenizerConfig as object);
    const options: ort.InferenceSession.SessionOptions = { logSeverityLevel: 3, ...this.sessionOptions };
    const [encoder, decoder] = await Promise.all([
      ort.InferenceSession.create(join(dir, 'onnx', files.encoder), options),
      ort.InferenceSession.create(join(dir, 'onnx', files.decoder), options),
    ]);
    const vocab = tokenizer.get_vocab(true);
    return {
      tokenizer,
      settings: parseModelSettings(config, generationConfig),
      encoder,
      decoder,
      unkId: tokenizer.token_to_id('<unk>'),
      specialIds: [...tokenizer.get_added_tokens_decoder().entries()]
        .filter(([, token]) => token.special)
        .map(([id]) => id),
      languageTokens: [...vocab.keys()].filter(isLanguageToken),
    };
  }

  /** Token ids ending in `</s>`, with the target-language token first for multi-target models. */
  private encodeInput(model: Loaded, text: string, target: string): number[] {
    const ids: number[] = model.tokenizer.encode(text).ids;
    // Text that spells a special token (`</s>`) would end or corrupt the sentence early.
    if (ids.slice(0, -1).some((id) => model.specialIds.includes(id) && id !== model.unkId)) {
      throw rejected('the text contains a special token of the model (such as </s>)');
    }
    const languageToken = targetLanguageToken(model.languageTokens, target);
    if (languageToken === null) {
      throw new EngineError(
        'offline',
        'unsupported',
        `model ${this.info.name} has no language token for ${target}`,
      );
    }
    if (languageToken !== undefined) ids.unshift(model.tokenizer.token_to_id(languageToken) as number);
    if (ids.length > model.settings.maxInputTokens) {
      throw rejected(
        `text is ${ids.length} tokens; model ${this.info.name} reads at most ${model.settings.maxInputTokens}`,
      );
    }
    return ids;
  }

  /** The output ids for `ids`, decoded in the next batch. */
  private decode(model: Loaded, ids: readonly number[]): Promise<number[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ids, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain(model));
      }
    });
  }

  /** Runs batches until nobody waits; a sentence asked for meanwhile joins the next batch. */
  private async drain(model: Loaded): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      try {
        const outputs = await this.decodeBatch(
          model,
          batch.map((w) => w.ids),
        );
        batch.forEach((w, i) => {
          const output = outputs[i];
          if (Array.isArray(output)) w.resolve(output);
          else w.reject(output);
        });
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.draining = false;
  }

  /**
   * Greedy decoding of a batch: inputs padded to one length (masked out), one encoder run, then one
   * decoder run per step for all rows until each has produced `</s>`. A row that finished is fed
   * padding; a row that fails gets its own error.
   */
  private async decodeBatch(
    model: Loaded,
    inputs: readonly (readonly number[])[],
  ): Promise<(number[] | Error)[]> {
    const { decoderStartId, eosIds, maxLength, suppressedIds, padId } = model.settings;
    const width = Math.max(...inputs.map((ids) => ids.length));
    const pad = padId ?? (eosIds[0] as number);
    const encoder = await this.runEncoder(
      model,
      inputs.map((ids) => [...ids, ...Array<number>(width - ids.length).fill(pad)]),
      inputs.map((ids) => Array.from({ length: width }, (_, k) => (k < ids.length ? 1 : 0))),
    );
    const runner = this.decoderRunner(model, encoder);
    const rows = inputs.map(() => [decoderStartId]);
    const results: (number[] | Error | undefined)[] = inputs.map(() => undefined);
    while ((rows[0] as number[]).length < maxLength && results.includes(undefined)) {
      const logits = await runner.next(rows);
      rows.forEach((tokens, row) => {
        if (results[row] !== undefined) return void tokens.push(pad);
        const next = greedyPick(logits[row] as Float32Array, suppressedIds);
        if (next < 0) results[row] = rejected(`model ${this.info.name} produced no valid logits`);
        else if (eosIds.includes(next)) results[row] = tokens.slice(1);
        tokens.push(results[row] === undefined ? next : pad);
      });
    }
    return results.map(
      (result) =>
        result ?? rejected(`model ${this.info.name} did not finish the sentence within ${maxLength} tokens`),
    );
  }

  private async runEncoder(
    model: Loaded,
    ids: readonly (readonly number[])[],
    mask: readonly (readonly number[])[],
  ): Promise<EncoderOutput> {
    const inputIds = int64Matrix(ids);
    const attentionMask = int64Matrix(mask);
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of model.encoder.inputNames) {
      if (name === 'input_ids') feeds[name] = inputIds;
      else if (name === 'attention_mask') feeds[name] = attentionMask;
      else throw new Error(`encoder input "${name}" is not one this engine knows how to feed`);
    }
    const outputs = await model.encoder.run(feeds);
    const hiddenStates = outputs.last_hidden_state;
    if (!(hiddenStates instanceof ort.Tensor)) throw new Error('encoder gave no "last_hidden_state"');
    return { hiddenStates, attentionMask };
  }

  private decoderRunner(model: Loaded, encoder: EncoderOutput): DecoderRunner {
    if (!isMergedDecoder(model.decoder)) return plainDecoder(model.decoder, encoder);
    return mergedDecoder(model.decoder, encoder, (name) => this.cacheShape(model, name));
  }

  /** [batch, heads, seq, headDim] of a cache input: from the model's static dims, else from config. */
  private cacheShape(model: Loaded, name: string): CacheShape {
    const meta = model.decoder.inputMetadata.find((input) => input.name === name);
    const dims = meta?.isTensor ? meta.shape : [];
    const { decoderAttentionHeads, dModel } = model.settings;
    const heads = typeof dims[1] === 'number' ? dims[1] : decoderAttentionHeads;
    const headDim = typeof dims[3] === 'number' ? dims[3] : heads && dModel ? dModel / heads : undefined;
    if (!heads || !headDim) {
      throw new Error(
        `cannot tell the shape of "${name}": config.json lacks decoder_attention_heads or d_model`,
      );
    }
    return { heads, headDim };
  }
}

/** `work`, unless the signal aborts first: the caller stops waiting, the batch it is in goes on. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
