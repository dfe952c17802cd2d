import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildTinyModel, EN_DE_LEXICON, ZH_EN_LEXICON } from '@tp/models';
import { translateOne } from '@tp/test/doubles/engine-test-kit';

import { capturingLogger } from '@tp/test/harness/logger';

import { EngineError } from '../engine.js';
import { discoverModels, TEST_MODEL_REFUSED } from './discover-models.js';
import { OfflineEngine } from './offline.engine.js';

const never = new AbortController().signal;

/** The rejection of a promise, for assertions on its fields. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('OfflineEngine with the tiny test models', () => {
  let modelsDir: string;
  let engine: OfflineEngine;

  beforeAll(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'tp-offline-'));
    await buildTinyModel(join(modelsDir, 'opus-mt-zh-en-tiny'), { lexicon: ZH_EN_LEXICON });
    await buildTinyModel(join(modelsDir, 'opus-mt-en-de-tiny'), {
      lexicon: EN_DE_LEXICON,
      decoder: 'merged',
    });
    engine = await OfflineEngine.open({ modelsDir, allowTestModels: true });
  });

  afterAll(async () => {
    await engine.close();
    await rm(modelsDir, { recursive: true, force: true });
  });

  it('lists the installed pairs with our language codes', () => {
    expect(engine.installedPairs()).toEqual(
      expect.arrayContaining([
        { source: 'zh-CN', target: 'en' },
        { source: 'en', target: 'de' },
      ]),
    );
    expect(engine.installedPairs()).toHaveLength(2);
  });

  it('reports the models as test models and which decoder file each uses', () => {
    const models = engine.installedModels();
    expect(models.map((model) => [model.name, model.testModel, model.decoderFile]).sort()).toEqual([
      ['opus-mt-en-de-tiny', true, 'decoder_model_merged.onnx'],
      ['opus-mt-zh-en-tiny', true, 'decoder_model.onnx'],
    ]);
  });

  it('translates 你好，世界 to hello, world with the plain decoder', async () => {
    const result = await translateOne(engine, { text: '你好，世界', source: 'zh-CN', target: 'en' }, never);
    expect(result.text).toContain('hello');
    expect(result.text).toContain('world');
    expect(result).toEqual({ text: 'hello, world', truncated: false });
  });

  it('translates a longer sentence word by word, punctuation included', async () => {
    const result = await translateOne(
      engine,
      { text: '我们喜欢猫和狗！', source: 'zh-CN', target: 'en' },
      never,
    );
    expect(result.text).toBe('we like cat and dog!');
  });

  it('translates with the merged (cached) decoder', async () => {
    const result = await translateOne(engine, { text: 'Hello, world!', source: 'en', target: 'de' }, never);
    expect(result.text).toBe('hallo, Welt!');
  });

  it('marks models as loaded once used', () => {
    expect(engine.installedModels().every((model) => model.loaded)).toBe(true);
  });

  it('pivots zh-CN -> de through English when no direct model exists', async () => {
    const result = await translateOne(engine, { text: '你好，世界。', source: 'zh-CN', target: 'de' }, never);
    expect(result.text).toBe('hallo, Welt.');
    expect(engine.supports('zh-CN', 'de')).toBe(true);
  });

  it('translates the texts of a call together, failing only the one with words outside the lexicon', async () => {
    const items = await engine.translate(
      { texts: ['你好，世界', '你好，火星人', '我们喜欢猫和狗！'], source: 'zh-CN', target: 'en' },
      never,
    );

    expect(items[0]).toEqual({ text: 'hello, world', truncated: false });
    expect(items[1]).toBeInstanceOf(EngineError);
    expect(items[1]).toMatchObject({ engine: 'offline', kind: 'rejected' });
    expect(items[2]).toEqual({ text: 'we like cat and dog!', truncated: false });
  });

  it('rejects text with words outside the lexicon instead of inventing output', async () => {
    const err = await failure(
      translateOne(engine, { text: '你好，火星人', source: 'zh-CN', target: 'en' }, never),
    );
    expect(err).toBeInstanceOf(EngineError);
    expect(err).toMatchObject({ engine: 'offline', kind: 'rejected' });
    expect((err as Error).message).toContain('<unk>');
  });

  it('rejects a pivot when the second model does not know a word', async () => {
    const err = await failure(
      translateOne(engine, { text: 'goodbye, dragon', source: 'en', target: 'de' }, never),
    );
    expect(err).toMatchObject({ kind: 'rejected' });
  });

  it('says unsupported for a pair with no route', async () => {
    const err = await failure(translateOne(engine, { text: 'hallo', source: 'de', target: 'fr' }, never));
    expect(err).toMatchObject({ engine: 'offline', kind: 'unsupported' });
    expect(engine.supports('de', 'fr')).toBe(false);
  });

  it('says unsupported for an auto-detect request', async () => {
    const err = await failure(translateOne(engine, { text: '你好', source: 'auto', target: 'en' }, never));
    expect(err).toMatchObject({ kind: 'unsupported' });
  });

  it('rejects text longer than the model reads', async () => {
    const err = await failure(
      translateOne(engine, { text: '你好'.repeat(200), source: 'zh-CN', target: 'en' }, never),
    );
    expect(err).toMatchObject({ kind: 'rejected' });
    expect((err as Error).message).toMatch(/at most 128/);
  });

  it('refuses a signal that is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await failure(
      translateOne(engine, { text: '你好', source: 'zh-CN', target: 'en' }, controller.signal),
    );
    expect(err).toMatchObject({ name: 'AbortError' });
  });

  it('stops waiting as soon as its signal aborts, while the sentences batched with it finish', async () => {
    const controller = new AbortController();
    const settled: string[] = [];
    const long = Array.from({ length: 20 }, () => '你好').join('，');
    const aborted = failure(
      translateOne(engine, { text: long, source: 'zh-CN', target: 'en' }, controller.signal),
    ).finally(() => settled.push('aborted'));
    const other = translateOne(engine, { text: '我喜欢猫', source: 'zh-CN', target: 'en' }, never).finally(
      () => settled.push('other'),
    );
    // The long sentence takes 40 decoding steps, each a turn of the event loop: this lands mid-batch.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await aborted).toMatchObject({ name: 'AbortError' });
    expect(await other).toEqual({ text: 'I like cat', truncated: false });
    expect(settled).toEqual(['aborted', 'other']);
  });

  it('translates concurrent sentences of different lengths in one batch, each to its own text', async () => {
    const texts = ['你好', '我们喜欢猫和狗！', '今天很好。', '他们是学生，她是老师。'];
    const results = await Promise.all(
      texts.map((text) => translateOne(engine, { text, source: 'zh-CN', target: 'en' }, never)),
    );
    expect(results.map((r) => r.text)).toEqual([
      'hello',
      'we like cat and dog!',
      'today very good.',
      'they is student, she is teacher.',
    ]);
  });

  it('fails only the sentence with an unknown word when it shares a batch with known ones', async () => {
    const [known, unknown] = await Promise.allSettled([
      translateOne(engine, { text: '你好', source: 'zh-CN', target: 'en' }, never),
      translateOne(engine, { text: '你好龙', source: 'zh-CN', target: 'en' }, never),
    ]);
    expect(known).toEqual({ status: 'fulfilled', value: { text: 'hello', truncated: false } });
    expect(unknown).toMatchObject({ status: 'rejected', reason: { kind: 'rejected' } });
  });

  it('returns whitespace unchanged without running a model', async () => {
    const result = await translateOne(engine, { text: '  ', source: 'zh-CN', target: 'en' }, never);
    expect(result).toEqual({ text: '  ', truncated: false });
  });
});

describe('OfflineEngine model discovery', () => {
  it('gives an engine with no pairs for a missing models directory', async () => {
    const engine = await OfflineEngine.open({ modelsDir: join(tmpdir(), 'tp-no-such-models-dir') });
    expect(engine.installedPairs()).toEqual([]);
    const err = await failure(translateOne(engine, { text: '你好', source: 'zh-CN', target: 'en' }, never));
    expect(err).toMatchObject({ kind: 'unsupported' });
  });

  it('prefers a real model over a test model of the same pair', async () => {
    const modelsDir = await mkdtemp(join(tmpdir(), 'tp-offline-'));
    try {
      await buildTinyModel(join(modelsDir, 'opus-mt-zh-en-tiny'));
      // A second tiny model without the marker stands in for a real one.
      await buildTinyModel(join(modelsDir, 'opus-mt-zh-en'));
      const configPath = join(modelsDir, 'opus-mt-zh-en', 'config.json');
      const config = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
      delete config._tp_test_model;
      await writeFile(configPath, JSON.stringify(config));
      const engine = await OfflineEngine.open({ modelsDir, allowTestModels: true });
      const models = engine.installedModels();
      expect(models.map((m) => [m.name, m.testModel, m.shadowed])).toEqual([
        ['opus-mt-zh-en', false, false],
        ['opus-mt-zh-en-tiny', true, true],
      ]);
      expect(engine.installedPairs()).toEqual([{ source: 'zh-CN', target: 'en' }]);
    } finally {
      await rm(modelsDir, { recursive: true, force: true });
    }
  });

  it('skips test models unless allowed, saying why, and serves no pair through them', async () => {
    const modelsDir = await mkdtemp(join(tmpdir(), 'tp-offline-'));
    try {
      await buildTinyModel(join(modelsDir, 'opus-mt-zh-en-tiny'));
      const lines = capturingLogger();
      const engine = await OfflineEngine.open({ modelsDir, logger: lines.logger });
      expect(engine.installedModels()).toEqual([]);
      expect(engine.installedPairs()).toEqual([]);
      expect((await engine.languagePairs()).pairs()).toEqual([]);
      expect(engine.supports('zh-CN', 'en')).toBe(false);
      expect(lines.levels()).toContain('warn');
      expect(lines.levels()).not.toContain('error');
      const { skipped } = await discoverModels(modelsDir);
      expect(skipped).toEqual([{ name: 'opus-mt-zh-en-tiny', reason: TEST_MODEL_REFUSED }]);
      expect(TEST_MODEL_REFUSED).toContain('ALLOW_TEST_MODELS=true');
      const err = await failure(engine.translate({ texts: ['你好'], source: 'zh-CN', target: 'en' }, never));
      expect(err).toMatchObject({ kind: 'unsupported' });
    } finally {
      await rm(modelsDir, { recursive: true, force: true });
    }
  });
});
