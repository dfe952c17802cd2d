import * as ort from 'onnxruntime-node';

/**
 * One greedy step for a batch: for each row of tokens (all of one length, starting with the decoder
 * start token), the logits of the token after it.
 */
export interface DecoderRunner {
  next(rows: readonly (readonly number[])[]): Promise<Float32Array[]>;
}

export interface EncoderOutput {
  readonly hiddenStates: ort.Tensor;
  readonly attentionMask: ort.Tensor;
}

/** A [rows, columns] int64 tensor; every row has the same length. */
export const int64Matrix = (rows: readonly (readonly number[])[]) =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(rows.flat(), (id) => BigInt(id)),
    [rows.length, rows[0]?.length ?? 0],
  );

/** Optimum's merged decoders take a cache and a `use_cache_branch` flag; plain ones take neither. */
export function isMergedDecoder(session: ort.InferenceSession): boolean {
  return session.inputNames.includes('use_cache_branch');
}

/** Each row's last-position logits from a [batch, seq, vocab] tensor. */
function lastLogits(logits: ort.OnnxValue | undefined): Float32Array[] {
  if (!(logits instanceof ort.Tensor) || logits.type !== 'float32' || logits.dims.length !== 3) {
    throw new Error('decoder output "logits" is not a float32 [batch, seq, vocab] tensor');
  }
  const [batch, seq, vocab] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  return Array.from({ length: batch }, (_, row) => {
    const end = (row * seq + seq) * vocab;
    return data.subarray(end - vocab, end);
  });
}

/** Feeds only the inputs the session declares (some exports drop the encoder mask). */
function pickFeeds(session: ort.InferenceSession, all: Record<string, ort.Tensor>) {
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    const tensor = all[name];
    if (!tensor) throw new Error(`decoder input "${name}" is not one this engine knows how to feed`);
    feeds[name] = tensor;
  }
  return feeds;
}

/** `decoder_model.onnx`: no cache, so every step re-reads the whole output so far. */
export function plainDecoder(session: ort.InferenceSession, encoder: EncoderOutput): DecoderRunner {
  return {
    async next(rows) {
      const outputs = await session.run(
        pickFeeds(session, {
          input_ids: int64Matrix(rows),
          encoder_hidden_states: encoder.hiddenStates,
          encoder_attention_mask: encoder.attentionMask,
        }),
      );
      return lastLogits(outputs.logits);
    },
  };
}

export interface CacheShape {
  readonly heads: number;
  readonly headDim: number;
}

/**
 * `decoder_model_merged.onnx`: the first step runs with `use_cache_branch` false and empty caches;
 * later steps feed only the newest token with the previous step's `present.*` as `past_key_values.*`.
 * The cross-attention (encoder) cache is computed once, on the first step: on the cache branch the
 * model's encoder presents are placeholders, so the first ones are kept (as transformers.js does).
 */
export function mergedDecoder(
  session: ort.InferenceSession,
  encoder: EncoderOutput,
  shape: (pastName: string) => CacheShape,
): DecoderRunner {
  const pastNames = session.inputNames.filter((name) => name.startsWith('past_key_values.'));
  let past: Record<string, ort.Tensor> | undefined;
  return {
    async next(rows) {
      const first = past === undefined;
      const cache =
        past ??
        Object.fromEntries(
          pastNames.map((name) => {
            const { heads, headDim } = shape(name);
            return [name, new ort.Tensor('float32', new Float32Array(0), [rows.length, heads, 0, headDim])];
          }),
        );
      const outputs = await session.run(
        pickFeeds(session, {
          input_ids: int64Matrix(first ? rows : rows.map((tokens) => tokens.slice(-1))),
          encoder_hidden_states: encoder.hiddenStates,
          encoder_attention_mask: encoder.attentionMask,
          use_cache_branch: new ort.Tensor('bool', new Uint8Array([first ? 0 : 1]), [1]),
          ...cache,
        }),
      );
      const next: Record<string, ort.Tensor> = {};
      for (const name of pastNames) {
        const keepEncoderCache = !first && name.includes('.encoder.');
        const present = keepEncoderCache
          ? cache[name]
          : outputs[name.replace('past_key_values.', 'present.')];
        if (!(present instanceof ort.Tensor)) throw new Error(`decoder gave no output for cache "${name}"`);
        next[name] = present;
      }
      past = next;
      return lastLogits(outputs.logits);
    },
  };
}
