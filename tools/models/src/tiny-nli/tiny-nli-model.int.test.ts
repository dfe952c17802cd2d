import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

import { STAMP_FILE } from '../shared/model-folder.js';
import { buildTinyNliModel } from './build-tiny-nli-model.js';

/** Logits [contradiction, neutral, entailment] of each pair, in one padded batch. */
async function logits(dir: string, pairs: [string, string][]): Promise<number[][]> {
  const read = async (file: string) => JSON.parse(await readFile(join(dir, file), 'utf8')) as object;
  const tokenizer = new Tokenizer(await read('tokenizer.json'), await read('tokenizer_config.json'));
  const session = await ort.InferenceSession.create(join(dir, 'onnx/model.onnx'));
  const encodings = pairs.map(([premise, hypothesis]) =>
    tokenizer.encode(premise, { text_pair: hypothesis, return_token_type_ids: true }),
  );
  const width = Math.max(...encodings.map((encoding) => encoding.ids.length));
  const tensor = (value: (encoding: (typeof encodings)[number], i: number) => number) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(
        encodings.flatMap((encoding) => Array.from({ length: width }, (_, i) => BigInt(value(encoding, i)))),
      ),
      [pairs.length, width],
    );
  const feeds: Record<string, ort.Tensor> = {
    input_ids: tensor((encoding, i) => encoding.ids[i] ?? 0),
    attention_mask: tensor((encoding, i) => (i < encoding.ids.length ? 1 : 0)),
  };
  if (session.inputNames.includes('token_type_ids')) {
    feeds.token_type_ids = tensor((encoding, i) => encoding.token_type_ids[i] ?? 0);
  }
  const { logits: output } = await session.run(feeds);
  expect(output?.dims).toEqual([pairs.length, 3]);
  const data = Array.from(output?.data as Float32Array);
  return pairs.map((_, row) => data.slice(row * 3, row * 3 + 3));
}

const PAIRS: [string, string][] = [
  ['They will kill him with a gun', 'This example is violence.'],
  ['They will kill him with a gun', 'This example is hate speech.'],
  ['They will kill him with a gun', 'This example is safe content.'],
  ['I like tea', 'This example is safe content.'],
  ['I like tea', 'This example is sports.'],
  ['我恨你，我要杀了你', 'This example is violence and hate.'],
  ['I hate spam', 'This example is self-harm.'],
];

/** By the rule: entailment 5 per shared concept, contradiction 5 per concept only the hypothesis names, neutral 1. */
const EXPECTED = [
  [0, 1, 5],
  [5, 1, 0],
  [5, 1, 0],
  [0, 1, 5],
  [0, 1, 0],
  [0, 1, 10],
  [5, 1, 0],
];

describe('tiny NLI model in onnxruntime', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tp-tiny-nli-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the logits of its keyword rule for a padded batch of pairs', async () => {
    const out = join(dir, 'separator');
    await buildTinyNliModel(out);
    expect(await logits(out, PAIRS)).toEqual(EXPECTED);
  });

  it('gives the same logits when it reads the segments from token_type_ids', async () => {
    const out = join(dir, 'token-types');
    await buildTinyNliModel(out, { tokenTypeIds: true });
    const session = await ort.InferenceSession.create(join(out, 'onnx/model.onnx'));
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    expect(await logits(out, PAIRS)).toEqual(EXPECTED);
  });

  it('does not rebuild a folder that holds the same build', async () => {
    const out = join(dir, 'again');
    const first = await buildTinyNliModel(out);
    expect(first.skipped).toBe(false);
    expect((await readFile(join(out, STAMP_FILE), 'utf8')).trim()).toBe(first.hash);
    expect(await buildTinyNliModel(out)).toMatchObject({ skipped: true, hash: first.hash });
  });
});
