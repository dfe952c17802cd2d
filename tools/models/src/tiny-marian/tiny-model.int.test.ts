import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as ort from 'onnxruntime-node';

import { STAMP_FILE, buildTinyModel } from './build-tiny-model.js';

const int64 = (values: number[]) =>
  new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);

/** Vocabulary ids of the default zh-en build, read from its tokenizer.json. */
async function vocabIds(dir: string): Promise<Map<string, number>> {
  const json = JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: [string][] };
  };
  return new Map(json.model.vocab.map(([token], id) => [token, id]));
}

function argmaxRows(logits: ort.Tensor): number[] {
  const [, rows, vocab] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  return Array.from({ length: rows }, (_, row) => {
    const slice = data.subarray(row * vocab, (row + 1) * vocab);
    return slice.indexOf(Math.max(...slice));
  });
}

describe('tiny model in onnxruntime', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tp-tiny-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs encoder then plain decoder and emits one target token per source token, then </s>', async () => {
    const out = join(dir, 'plain');
    await buildTinyModel(out);
    const ids = await vocabIds(out);
    const source = ['你好', '，', '世界', '</s>'].map((token) => ids.get(token) as number);
    const encoder = await ort.InferenceSession.create(join(out, 'onnx/encoder_model.onnx'));
    const decoder = await ort.InferenceSession.create(join(out, 'onnx/decoder_model.onnx'));
    const mask = int64(source.map(() => 1));
    const { last_hidden_state: states } = await encoder.run({
      input_ids: int64(source),
      attention_mask: mask,
    });
    expect(states?.dims).toEqual([1, 4, ids.size + 128]);
    const pad = ids.get('<pad>') as number;
    const { logits } = await decoder.run({
      input_ids: int64([pad, 0, 0, 0]),
      encoder_hidden_states: states as ort.Tensor,
      encoder_attention_mask: mask,
    });
    expect(logits?.dims).toEqual([1, 4, ids.size]);
    const tokens = [...ids.keys()];
    expect(argmaxRows(logits as ort.Tensor).map((id) => tokens[id])).toEqual([
      '▁hello',
      ',',
      '▁world',
      '</s>',
    ]);
  });

  it('runs the merged decoder one token at a time with the cache branch', async () => {
    const out = join(dir, 'merged');
    await buildTinyModel(out, { decoder: 'merged' });
    const ids = await vocabIds(out);
    const tokens = [...ids.keys()];
    const source = ['世界', '</s>'].map((token) => ids.get(token) as number);
    const encoder = await ort.InferenceSession.create(join(out, 'onnx/encoder_model.onnx'));
    const decoder = await ort.InferenceSession.create(join(out, 'onnx/decoder_model_merged.onnx'));
    const mask = int64(source.map(() => 1));
    const { last_hidden_state: states } = await encoder.run({
      input_ids: int64(source),
      attention_mask: mask,
    });
    const d = ids.size + 128;
    const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, 1, 0, d]);
    const common = { encoder_hidden_states: states as ort.Tensor, encoder_attention_mask: mask };
    const first = await decoder.run({
      ...common,
      input_ids: int64([ids.get('<pad>') as number]),
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([0]), [1]),
      'past_key_values.0.decoder.key': empty(),
      'past_key_values.0.decoder.value': empty(),
      'past_key_values.0.encoder.key': empty(),
      'past_key_values.0.encoder.value': empty(),
    });
    expect(tokens[argmaxRows(first.logits as ort.Tensor)[0] as number]).toBe('▁world');
    expect(first['present.0.decoder.key']?.dims).toEqual([1, 1, 1, d]);
    const second = await decoder.run({
      ...common,
      input_ids: int64([ids.get('▁world') as number]),
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([1]), [1]),
      'past_key_values.0.decoder.key': first['present.0.decoder.key'] as ort.Tensor,
      'past_key_values.0.decoder.value': first['present.0.decoder.value'] as ort.Tensor,
      'past_key_values.0.encoder.key': first['present.0.encoder.key'] as ort.Tensor,
      'past_key_values.0.encoder.value': first['present.0.encoder.value'] as ort.Tensor,
    });
    expect(tokens[argmaxRows(second.logits as ort.Tensor)[0] as number]).toBe('</s>');
    expect(second['present.0.decoder.key']?.dims).toEqual([1, 1, 2, d]);
  });
});

describe('buildTinyModel on disk', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tp-tiny-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('skips a folder that already holds the same build', async () => {
    const first = await buildTinyModel(dir);
    const second = await buildTinyModel(dir);
    expect(first.skipped).toBe(false);
    expect(second).toMatchObject({ skipped: true, hash: first.hash });
    expect((await readFile(join(dir, STAMP_FILE), 'utf8')).trim()).toBe(first.hash);
  });

  it('rebuilds when a file is missing or the stamp does not match', async () => {
    await buildTinyModel(dir);
    await rm(join(dir, 'onnx/encoder_model.onnx'));
    expect((await buildTinyModel(dir)).skipped).toBe(false);
    await stat(join(dir, 'onnx/encoder_model.onnx'));
    await writeFile(join(dir, STAMP_FILE), 'stale\n');
    expect((await buildTinyModel(dir)).skipped).toBe(false);
  });

  it('removes the decoder of the other layout when the layout changes', async () => {
    await buildTinyModel(dir, { decoder: 'plain' });
    await buildTinyModel(dir, { decoder: 'merged' });
    await expect(stat(join(dir, 'onnx/decoder_model.onnx'))).rejects.toThrow(/ENOENT/);
    await stat(join(dir, 'onnx/decoder_model_merged.onnx'));
  });
});
