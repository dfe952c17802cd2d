import { copyFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { capturingLogger, silentLogger } from '@tp/test/harness/logger';
import { tinyNliModel } from '../../test/nli-fixture.js';
import { ModelSlot } from './model-slot.js';
import { NliModel, TestModelRefusedError } from './nli-model.js';

describe('NliModel with the tiny model in onnxruntime', () => {
  let tiny: Awaited<ReturnType<typeof tinyNliModel>>;
  let model: NliModel;

  beforeAll(async () => {
    tiny = await tinyNliModel();
    model = await NliModel.load(tiny.dir, { allowTestModel: true });
  });

  afterAll(async () => {
    await model?.release();
    await tiny?.remove();
  });

  it('reads the label layout from config.json: entailment at 2, contradiction at 0', () => {
    expect(model.settings).toMatchObject({
      labels: ['contradiction', 'neutral', 'entailment'],
      entailment: 2,
      contradiction: 0,
      maxLength: 128,
    });
    expect(model.info).toMatchObject({ id: 'tiny-nli', file: 'model.onnx', testModel: true });
  });

  it('runs every hypothesis against the text in one batch, giving the rule logits', async () => {
    const rows = await model.logits('They will kill him with a gun', [
      'This example is violence.',
      'This example is hate speech.',
      'This example is about violence and hate.',
    ]);
    expect(rows).toEqual([
      [0, 1, 5],
      [5, 1, 0],
      [5, 1, 5],
    ]);
  });

  it('cuts only the text when the pair is longer than the model reads', async () => {
    // 200 filler words push "kill" past the 128-token limit; the hypothesis stays whole.
    const long = `${'tea '.repeat(200)}kill`;
    expect(await model.logits(long, ['This example is violence.'])).toEqual([[5, 1, 0]]);
    expect(await model.logits(`kill ${'tea '.repeat(200)}`, ['This example is violence.'])).toEqual([
      [0, 1, 5],
    ]);
  });

  it('feeds token_type_ids when the model asks for them', async () => {
    const typed = await tinyNliModel({ tokenTypeIds: true });
    const withTypes = await NliModel.load(typed.dir, { allowTestModel: true });
    try {
      expect(
        await withTypes.logits('I hate spam', ['This example is spam.', 'This example is violence.']),
      ).toEqual([
        [0, 1, 5],
        [5, 1, 0],
      ]);
    } finally {
      await withTypes.release();
      await typed.remove();
    }
  });

  it('prefers onnx/model_quantized.onnx over onnx/model.onnx', async () => {
    const quantized = await tinyNliModel();
    await copyFile(join(quantized.dir, 'onnx/model.onnx'), join(quantized.dir, 'onnx/model_quantized.onnx'));
    await rename(join(quantized.dir, 'onnx/model.onnx'), join(quantized.dir, 'onnx/model.onnx.bak'));
    const loaded = await NliModel.load(quantized.dir, { allowTestModel: true });
    expect(loaded.info.file).toBe('model_quantized.onnx');
    await loaded.release();
    await quantized.remove();
  });

  it('refuses a test model unless allowed', async () => {
    await expect(NliModel.load(tiny.dir, { allowTestModel: false })).rejects.toThrow(TestModelRefusedError);
  });
});

describe('ModelSlot', () => {
  it('is degraded, with the reason on /ready, when no model is configured or the folder is missing', async () => {
    const none = await ModelSlot.open({ dir: '', allowTestModel: false, logger: silentLogger() });
    await expect(none.check().check()).resolves.toEqual({
      degraded: 'no model configured (NLI_MODEL_DIR is empty)',
    });
    expect(none.check()).toMatchObject({ name: 'model', required: false });
    expect(() => none.require()).toThrow(expect.objectContaining({ code: 'NLI_MODEL_NOT_READY' }));

    const missing = await ModelSlot.open({
      dir: '/nonexistent/nli/model',
      allowTestModel: false,
      logger: silentLogger(),
    });
    expect(missing.state).toMatchObject({ status: 'not_ready', modelId: 'model', testModel: false });
    await expect(missing.check().check()).resolves.toEqual({
      degraded:
        'no model at /nonexistent/nli/model; `npm run models:pull -- nli` to add one (or set NLI_MODEL_DIR)',
    });
  });

  it('is down and required on /ready without a model when the model is required', async () => {
    const none = await ModelSlot.open({
      dir: '',
      allowTestModel: false,
      required: true,
      logger: silentLogger(),
    });
    expect(none.check()).toMatchObject({ name: 'model', required: true });
    await expect(none.check().check()).rejects.toThrow('NLI_MODEL_DIR is empty');
  });

  it('logs a missing or refused model as a warning, a model it cannot use as an error', async () => {
    const lines = capturingLogger();
    const tiny = await tinyNliModel();
    try {
      await ModelSlot.open({ dir: '/nonexistent/nli/model', allowTestModel: false, logger: lines.logger });
      await ModelSlot.open({ dir: tiny.dir, allowTestModel: false, logger: lines.logger });
    } finally {
      await tiny.remove();
    }
    expect(lines.levels()).toEqual(['warn', 'warn']);
    const broken = await mkdtemp(join(tmpdir(), 'tp-nli-broken-'));
    try {
      await writeFile(join(broken, 'config.json'), '{not json');
      const errors = capturingLogger();
      await ModelSlot.open({ dir: broken, allowTestModel: false, logger: errors.logger });
      expect(errors.levels()).toEqual(['error']);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
