import { describe, expect, it } from '@jest/globals';

import { greedyPick, parseModelSettings } from './model-settings.js';

/** The decoding fields of Xenova/opus-mt-zh-en's config.json. */
const marianConfig = {
  model_type: 'marian',
  d_model: 512,
  decoder_attention_heads: 8,
  decoder_start_token_id: 65000,
  eos_token_id: 0,
  pad_token_id: 65000,
  max_length: 512,
  max_position_embeddings: 512,
  bad_words_ids: [[65000]],
};

describe('parseModelSettings', () => {
  it('reads a Marian config', () => {
    expect(parseModelSettings(marianConfig)).toEqual({
      decoderStartId: 65000,
      eosIds: [0],
      maxLength: 512,
      maxInputTokens: 512,
      padId: 65000,
      suppressedIds: [65000],
      decoderAttentionHeads: 8,
      dModel: 512,
      testModel: false,
    });
  });

  it('lets generation_config.json override config.json', () => {
    expect(parseModelSettings(marianConfig, { max_length: 64, eos_token_id: [0, 7] })).toMatchObject({
      maxLength: 64,
      eosIds: [0, 7],
    });
  });

  it('sees the test-model marker', () => {
    expect(parseModelSettings({ ...marianConfig, _tp_test_model: true }).testModel).toBe(true);
  });

  it('fails on a config without a decoder start token', () => {
    expect(() => parseModelSettings({ eos_token_id: 0 })).toThrow(/decoder_start_token_id/);
  });
});

describe('greedyPick', () => {
  it('picks the highest logit', () => {
    expect(greedyPick(new Float32Array([0, 3, 1]), [])).toBe(1);
  });

  it('skips suppressed tokens', () => {
    expect(greedyPick(new Float32Array([0, 3, 1]), [1])).toBe(2);
  });

  it('gives the lowest id on a tie', () => {
    expect(greedyPick(new Float32Array([2, 2]), [])).toBe(0);
  });

  it('gives -1 when every logit is NaN', () => {
    expect(greedyPick(new Float32Array([NaN, NaN]), [])).toBe(-1);
  });
});
