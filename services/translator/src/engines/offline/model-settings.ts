import { z } from 'zod';

const tokenId = z.number().int().nonnegative();

/** The fields of config.json and generation_config.json that greedy decoding needs. */
const settingsSchema = z.object({
  decoder_start_token_id: tokenId,
  eos_token_id: z.union([tokenId, z.array(tokenId).nonempty()]),
  pad_token_id: tokenId.optional(),
  max_length: z.number().int().positive().optional(),
  max_position_embeddings: z.number().int().positive().optional(),
  bad_words_ids: z.array(z.array(tokenId)).optional(),
  d_model: z.number().int().positive().optional(),
  decoder_attention_heads: z.number().int().positive().optional(),
  _tp_test_model: z.boolean().optional(),
});

export interface ModelSettings {
  readonly decoderStartId: number;
  readonly eosIds: readonly number[];
  /** Fills the short sentences of a batch (masked out, so any id would do); `</s>` when unset. */
  readonly padId?: number;
  /** Output length limit in tokens, counting the decoder start token (Hugging Face's max_length). */
  readonly maxLength: number;
  /** Input length limit in tokens, counting `</s>`. */
  readonly maxInputTokens: number;
  /** Tokens never to emit (single-token bad_words_ids: Marian bans `<pad>`). */
  readonly suppressedIds: readonly number[];
  readonly decoderAttentionHeads?: number;
  readonly dModel?: number;
  /** Set by our tiny test models (tools/models) in config.json. */
  readonly testModel: boolean;
}

/** Marian's own limits when a config leaves them out. */
const DEFAULT_MAX_LENGTH = 512;

/**
 * Reads the decoding settings. generation_config.json wins over config.json, as in transformers.
 * Throws a zod error naming the missing or bad field.
 */
export function parseModelSettings(config: unknown, generationConfig: unknown = {}): ModelSettings {
  const merged = { ...(config as object), ...(generationConfig as object) };
  const raw = settingsSchema.parse(merged);
  const eosIds = Array.isArray(raw.eos_token_id) ? raw.eos_token_id : [raw.eos_token_id];
  return {
    decoderStartId: raw.decoder_start_token_id,
    eosIds,
    ...(raw.pad_token_id !== undefined && { padId: raw.pad_token_id }),
    maxLength: raw.max_length ?? raw.max_position_embeddings ?? DEFAULT_MAX_LENGTH,
    maxInputTokens: raw.max_position_embeddings ?? DEFAULT_MAX_LENGTH,
    suppressedIds: (raw.bad_words_ids ?? []).filter((ids) => ids.length === 1).map((ids) => ids[0] as number),
    ...(raw.decoder_attention_heads !== undefined && { decoderAttentionHeads: raw.decoder_attention_heads }),
    ...(raw.d_model !== undefined && { dModel: raw.d_model }),
    testModel: raw._tp_test_model === true,
  };
}

/** The most likely token, skipping suppressed ones; ties go to the lowest id, as argmax does. */
export function greedyPick(logits: ArrayLike<number>, suppressed: readonly number[]): number {
  let best = -1;
  let bestScore = -Infinity;
  for (let id = 0; id < logits.length; id++) {
    const score = logits[id] as number;
    if (score > bestScore && !suppressed.includes(id)) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}
