import { describe, expect, it } from '@jest/globals';

import { parseModelFolderName, pickOnnxFiles } from './model-folder.js';

describe('parseModelFolderName', () => {
  it('maps opus-mt-zh-en to our zh-CN -> en', () => {
    expect(parseModelFolderName('opus-mt-zh-en')).toEqual({ source: 'zh-CN', target: 'en' });
  });

  it('accepts suffixes such as -tiny', () => {
    expect(parseModelFolderName('opus-mt-en-de-tiny')).toEqual({ source: 'en', target: 'de' });
    expect(parseModelFolderName('opus-mt-en-zh-int8-v2')).toEqual({ source: 'en', target: 'zh-CN' });
  });

  it("accepts Helsinki's tc-big names", () => {
    expect(parseModelFolderName('opus-mt-tc-big-en-fr')).toEqual({ source: 'en', target: 'fr' });
  });

  it('refuses other names and language groups', () => {
    expect(parseModelFolderName('mdeberta-v3-base-xnli')).toBeUndefined();
    expect(parseModelFolderName('opus-mt-en')).toBeUndefined();
    expect(parseModelFolderName('opus-mt-en-mul')).toBeUndefined();
    expect(parseModelFolderName('opus-mt-en-en')).toBeUndefined();
  });
});

describe('pickOnnxFiles', () => {
  const xenova = [
    'decoder_model.onnx',
    'decoder_model_merged.onnx',
    'decoder_model_merged_quantized.onnx',
    'decoder_model_quantized.onnx',
    'decoder_with_past_model.onnx',
    'decoder_with_past_model_quantized.onnx',
    'encoder_model.onnx',
    'encoder_model_quantized.onnx',
  ];

  it('prefers the quantized encoder and the quantized merged decoder', () => {
    expect(pickOnnxFiles(xenova)).toEqual({
      encoder: 'encoder_model_quantized.onnx',
      decoder: 'decoder_model_merged_quantized.onnx',
    });
  });

  it('falls back to the plain files', () => {
    expect(pickOnnxFiles(['encoder_model.onnx', 'decoder_model.onnx'])).toEqual({
      encoder: 'encoder_model.onnx',
      decoder: 'decoder_model.onnx',
    });
  });

  it('takes another variant only when no preferred name is there, never decoder_with_past', () => {
    expect(
      pickOnnxFiles(['encoder_model_fp16.onnx', 'decoder_with_past_model.onnx', 'decoder_model_fp16.onnx']),
    ).toEqual({ encoder: 'encoder_model_fp16.onnx', decoder: 'decoder_model_fp16.onnx' });
  });

  it('gives undefined when the encoder or the decoder is missing', () => {
    expect(pickOnnxFiles(['encoder_model.onnx', 'decoder_with_past_model.onnx'])).toBeUndefined();
    expect(pickOnnxFiles(['decoder_model.onnx', 'encoder_model.onnx.part'])).toBeUndefined();
  });
});
