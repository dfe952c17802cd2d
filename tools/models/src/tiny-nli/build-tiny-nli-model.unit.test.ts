import { describe, expect, it } from '@jest/globals';
import { Tokenizer } from '@huggingface/tokenizers';

import { filesHash } from '../shared/model-folder.js';
import { tinyNliModelFiles } from './build-tiny-nli-model.js';
import { CONCEPTS } from './concepts.js';
import { buildNliVocab } from './vocab.js';

const json = (files: Map<string, Uint8Array>, path: string) =>
  JSON.parse(new TextDecoder().decode(files.get(path))) as Record<string, unknown>;

describe('tinyNliModelFiles', () => {
  it('writes the Optimum sequence-classification layout', () => {
    expect([...tinyNliModelFiles().keys()].sort()).toEqual([
      'config.json',
      'onnx/model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
  });

  it('gives the same bytes on every build, and another build for another interface', () => {
    expect(filesHash(tinyNliModelFiles())).toBe(filesHash(tinyNliModelFiles()));
    expect(filesHash(tinyNliModelFiles({ tokenTypeIds: true }))).not.toBe(filesHash(tinyNliModelFiles()));
  });

  it('marks config.json as a test model whose labels do not put entailment first', () => {
    const config = json(tinyNliModelFiles(), 'config.json');
    expect(config).toMatchObject({
      _tp_test_model: true,
      id2label: { 0: 'contradiction', 1: 'neutral', 2: 'entailment' },
      label2id: { contradiction: 0, neutral: 1, entailment: 2 },
      max_position_embeddings: 128,
      pad_token_id: 0,
    });
    expect(json(tinyNliModelFiles({ maxLength: 64 }), 'tokenizer_config.json')).toMatchObject({
      model_max_length: 64,
    });
  });

  it('has a tokenizer that encodes a pair as [CLS] premise [SEP] hypothesis [SEP] with type ids 0 then 1', () => {
    const files = tinyNliModelFiles();
    const tokenizer = new Tokenizer(json(files, 'tokenizer.json'), json(files, 'tokenizer_config.json'));
    const encoding = tokenizer.encode('They KILL, 我恨', {
      text_pair: 'This example is violence.',
      return_token_type_ids: true,
    });
    expect(encoding.tokens).toEqual([
      '[CLS]',
      '[UNK]',
      'kill',
      ',',
      '[UNK]',
      '恨',
      '[SEP]',
      'this',
      'example',
      'is',
      'violence',
      '.',
      '[SEP]',
    ]);
    expect(encoding.token_type_ids).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
  });
});

describe('buildNliVocab', () => {
  it('puts the BERT specials first and records the concept of every keyword', () => {
    const vocab = buildNliVocab(CONCEPTS);
    expect(vocab.tokens.slice(0, 4)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
    expect(vocab.conceptOf[vocab.tokens.indexOf('gun')]).toBe(0);
    expect(vocab.conceptOf[vocab.tokens.indexOf('safe')]).toBe(CONCEPTS.length - 1);
    expect(vocab.conceptOf[vocab.tokens.indexOf('example')]).toBe(-1);
  });

  it('refuses words that cannot be one token, and duplicates', () => {
    expect(() => buildNliVocab([{ name: 'x', words: ['self-harm'] }])).toThrow(/one token/);
    expect(() => buildNliVocab([{ name: 'x', words: ['Kill'] }])).toThrow(/one token/);
    expect(() =>
      buildNliVocab([
        { name: 'x', words: ['spam'] },
        { name: 'y', words: ['spam'] },
      ]),
    ).toThrow(/twice/);
  });
});
