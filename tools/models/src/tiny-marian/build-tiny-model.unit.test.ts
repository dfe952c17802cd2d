import { describe, expect, it } from '@jest/globals';

import { filesHash, tinyModelFiles } from './build-tiny-model.js';
import { EN_DE_LEXICON } from './lexicon.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('tinyModelFiles', () => {
  it('writes the Xenova/opus-mt layout', () => {
    expect([...tinyModelFiles().keys()].sort()).toEqual([
      'config.json',
      'generation_config.json',
      'onnx/decoder_model.onnx',
      'onnx/encoder_model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect([...tinyModelFiles({ decoder: 'merged' }).keys()]).toContain('onnx/decoder_model_merged.onnx');
  });

  it('gives the same bytes on every build', () => {
    const first = tinyModelFiles({ decoder: 'merged' });
    const second = tinyModelFiles({ decoder: 'merged' });
    for (const [path, bytes] of first) expect(Buffer.compare(bytes, second.get(path) as Uint8Array)).toBe(0);
    expect(filesHash(first)).toBe(filesHash(second));
  });

  it('gives a different build for a different lexicon', () => {
    expect(filesHash(tinyModelFiles({ lexicon: EN_DE_LEXICON }))).not.toBe(filesHash(tinyModelFiles()));
  });

  it('builds in well under a second', () => {
    const started = performance.now();
    tinyModelFiles({ decoder: 'merged' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('marks config.json as a test model with Marian token ids', () => {
    const config = JSON.parse(text(tinyModelFiles().get('config.json'))) as Record<string, unknown>;
    expect(config).toMatchObject({
      _tp_test_model: true,
      model_type: 'marian',
      eos_token_id: 0,
      forced_eos_token_id: 0,
      decoder_start_token_id: config.pad_token_id,
      max_length: 128,
    });
    expect(config.vocab_size).toBe((config.pad_token_id as number) + 1);
    expect(config._tp_description).toMatch(/lexicon toy model/i);
  });
});
