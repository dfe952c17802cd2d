import { describe, expect, it } from '@jest/globals';

import { parseModelSettings, pickOnnxFile } from './model-settings.js';

describe('parseModelSettings', () => {
  it('finds entailment and contradiction by name, not by position', () => {
    const settings = parseModelSettings({
      id2label: { 0: 'CONTRADICTION', 1: 'neutral', 2: 'Entailment' },
      label2id: { CONTRADICTION: 0, neutral: 1, Entailment: 2 },
    });
    expect(settings).toMatchObject({
      labels: ['CONTRADICTION', 'neutral', 'Entailment'],
      entailment: 2,
      contradiction: 0,
    });
  });

  it('reads the mDeBERTa order (0 entailment, 1 neutral, 2 contradiction), from id2label alone too', () => {
    const settings = parseModelSettings({ id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' } });
    expect(settings).toMatchObject({ entailment: 0, contradiction: 2 });
  });

  it('refuses a model without entailment or contradiction labels', () => {
    expect(() => parseModelSettings({ id2label: { 0: 'LABEL_0', 1: 'LABEL_1' } })).toThrow(
      /not an NLI model/,
    );
    expect(() => parseModelSettings({})).toThrow(/id2label/);
  });

  it('takes the length limit from tokenizer_config, then config, ignoring the "no limit" sentinel', () => {
    const config = { id2label: { 0: 'entailment', 1: 'contradiction' }, max_position_embeddings: 512 };
    expect(parseModelSettings(config, { model_max_length: 256 }).maxLength).toBe(256);
    expect(parseModelSettings(config, { model_max_length: 1e30 }).maxLength).toBe(512);
    expect(parseModelSettings({ id2label: config.id2label }).maxLength).toBe(512);
  });

  it('reports the test-model marker', () => {
    const labels = { id2label: { 0: 'entailment', 1: 'contradiction' } };
    expect(parseModelSettings({ ...labels, _tp_test_model: true }).testModel).toBe(true);
    expect(parseModelSettings(labels).testModel).toBe(false);
  });
});

describe('pickOnnxFile', () => {
  it('prefers the quantized graph, then the full one', () => {
    expect(pickOnnxFile(['model.onnx', 'model_quantized.onnx', 'model_fp16.onnx'])).toBe(
      'model_quantized.onnx',
    );
    expect(pickOnnxFile(['model.onnx'])).toBe('model.onnx');
    expect(pickOnnxFile(['model_fp16.onnx'])).toBeUndefined();
  });
});
