import { basename, resolve } from 'node:path';

import { AppError, type DependencyCheck, type Logger } from '@tp/runtime';

import { NliModel, TestModelRefusedError } from './nli-model.js';

export type ModelState =
  | { readonly status: 'ready'; readonly model: NliModel }
  | {
      readonly status: 'not_ready';
      /** The folder name, when a folder was configured. */
      readonly modelId: string | undefined;
      /** The folder holds a test model (refused without ALLOW_TEST_MODELS). */
      readonly testModel: boolean;
      readonly reason: string;
    };

export interface ModelSlotOptions {
  /** NLI_MODEL_DIR; empty means none configured. */
  readonly dir: string;
  readonly allowTestModel: boolean;
  /** NLI_MODEL_REQUIRED: without a model the service is not ready (default: ready, degraded). */
  readonly required?: boolean;
  readonly logger: Logger;
}

/**
 * The service's one model, loaded at start. When it cannot be loaded the service still runs: /ready
 * reports the `model` check degraded (down and required with NLI_MODEL_REQUIRED) and every
 * classification answers 503 NLI_MODEL_NOT_READY with the reason, rather than guessing. Installing a
 * model needs a restart.
 */
export class ModelSlot {
  private constructor(
    private current: ModelState,
    private readonly required: boolean,
  ) {}

  static async open({ dir, allowTestModel, required = false, logger }: ModelSlotOptions): Promise<ModelSlot> {
    if (dir.trim() === '') {
      logger.warn('NLI_MODEL_DIR is empty: no NLI model, classification answers 503');
      return new ModelSlot(
        notReady(undefined, false, 'no model configured (NLI_MODEL_DIR is empty)'),
        required,
      );
    }
    const path = resolve(dir);
    const modelId = basename(path);
    try {
      const model = await NliModel.load(path, { allowTestModel });
      const { id, file, testModel } = model.info;
      const { labels, maxLength } = model.settings;
      logger.info({ model: id, file, labels, maxLength }, 'NLI model loaded');
      if (testModel) {
        logger.warn(
          { model: id },
          'the NLI model is a TEST MODEL: a keyword toy, not a classifier. Install the real one with `npm run models:pull -- nli`.',
        );
      }
      return new ModelSlot({ status: 'ready', model }, required);
    } catch (err) {
      const reason = describeLoadFailure(dir, err);
      // No model, or a test model refused, is the expected state of a fresh set-up: a warning. A
      // model that is there but cannot be used is a fault.
      const expected = isMissing(err) || err instanceof TestModelRefusedError;
      logger[expected ? 'warn' : 'error'](
        { model: modelId, reason },
        'NLI model not loaded: classification answers 503',
      );
      return new ModelSlot(notReady(modelId, err instanceof TestModelRefusedError, reason), required);
    }
  }

  get state(): ModelState {
    return this.current;
  }

  /** The model, or 503 NLI_MODEL_NOT_READY saying why. */
  require(): NliModel {
    if (this.current.status === 'ready') return this.current.model;
    throw new AppError('NLI_MODEL_NOT_READY', `the NLI model is not ready: ${this.current.reason}`);
  }

  /**
   * `model` on /ready: degraded without a model (the service answers, with 503 NLI_MODEL_NOT_READY
   * and the reason), so a set-up without one is ready; down and required with NLI_MODEL_REQUIRED.
   */
  check(): DependencyCheck {
    return {
      name: 'model',
      required: this.required,
      check: async () => {
        if (this.current.status === 'ready') return undefined;
        if (this.required) throw new Error(this.current.reason);
        return { degraded: this.current.reason };
      },
    };
  }

  async close(): Promise<void> {
    const state = this.current;
    this.current = notReady(undefined, false, 'the service is stopping');
    if (state.status === 'ready') await state.model.release();
  }
}

const notReady = (modelId: string | undefined, testModel: boolean, reason: string): ModelState => ({
  status: 'not_ready',
  modelId,
  testModel,
  reason,
});

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Why the model at `dir` (as configured, so the reason names no absolute path) was not loaded. */
function describeLoadFailure(dir: string, err: unknown): string {
  if (err instanceof TestModelRefusedError) return err.message;
  if (isMissing(err)) {
    return `no model at ${dir}; \`npm run models:pull -- nli\` to add one (or set NLI_MODEL_DIR)`;
  }
  return `the model at ${dir} cannot be used: ${err instanceof Error ? err.message : String(err)}`;
}
