import type { Logger } from '@tp/runtime';
import type { InferenceSession } from 'onnxruntime-node';

import { EngineError, type EngineItem, type EngineRequest, type TranslationEngine } from '../engine.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { discoverModels, type InstalledModel } from './discover-models.js';
import { sameLanguage } from './languages.js';
import { MarianModel } from './marian-model.js';
import type { LanguagePair } from './model-folder.js';
import { planRoute } from './route.js';

export interface OfflineEngineOptions {
  /** The folder holding one `opus-mt-<src>-<tgt>*` folder per model (`var/models`). */
  readonly modelsDir: string;
  readonly logger?: Logger;
  /** Passed to onnxruntime, e.g. `{ intraOpNumThreads: 2 }`. */
  readonly sessionOptions?: InferenceSession.SessionOptions;
  /** Load models marked as test models (ALLOW_TEST_MODELS); skipped otherwise. */
  readonly allowTestModels?: boolean;
}

/**
 * onnxruntime settings for `threads` threads per run. The pool's threads sleep between runs instead of
 * spinning: spinning wins microseconds on an idle machine, but burns a core that the consumers, Kafka
 * and Postgres beside the translator need.
 */
export function offlineSessionOptions(threads: number): InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  };
}

/** What a status page shows for one installed model. */
export interface OfflineModelStatus extends LanguagePair {
  readonly name: string;
  readonly dir: string;
  readonly encoderFile: string;
  readonly decoderFile: string;
  /** A toy lexicon model from tools/models, not a real translator. */
  readonly testModel: boolean;
  /** The sessions have been created (models load on first use). */
  readonly loaded: boolean;
  /** Another model serves the same pair (real models win over test models, then by name). */
  readonly shadowed: boolean;
}

/**
 * Translates on this machine with Opus-MT models (ONNX, run by onnxruntime). Uses the direct model
 * when installed, otherwise pivots through English. Open it with `OfflineEngine.open`.
 */
export class OfflineEngine implements TranslationEngine {
  readonly name = 'offline' as const;
  /** Opus-MT reads at most 512 tokens; 1000 characters of prose stay well below that. */
  readonly maxChars = 1000;
  /** The texts of a call are decoded together, as one batch of the model (MarianModel's 16 rows). */
  readonly batch = { maxTexts: 16, maxChars: 8000 };

  private constructor(
    private readonly models: readonly MarianModel[],
    private readonly logger: Logger | undefined,
  ) {}

  /**
   * Scans the models directory once; a missing directory gives an engine with no pairs. A test model
   * is skipped (with a warning) unless `allowTestModels`.
   */
  static async open(options: OfflineEngineOptions): Promise<OfflineEngine> {
    const { models, skipped } = await discoverModels(options.modelsDir, {
      allowTestModels: options.allowTestModels === true,
    });
    for (const folder of skipped) {
      options.logger?.warn({ folder: folder.name, reason: folder.reason }, 'offline model folder skipped');
    }
    options.logger?.info(
      { modelsDir: options.modelsDir, models: models.map((model) => model.name) },
      'offline models found',
    );
    return new OfflineEngine(
      models.map((model) => new MarianModel(model, options.sessionOptions)),
      options.logger,
    );
  }

  /** The language pairs with a model, one entry per pair. */
  installedPairs(): LanguagePair[] {
    return this.servingModels().map(({ info }) => ({ source: info.source, target: info.target }));
  }

  installedModels(): OfflineModelStatus[] {
    const serving = this.servingModels();
    return this.models.map(({ info, loaded }, i) => ({
      name: info.name,
      dir: info.dir,
      source: info.source,
      target: info.target,
      encoderFile: info.files.encoder,
      decoderFile: info.files.decoder,
      testModel: info.testModel,
      loaded,
      shadowed: !serving.includes(this.models[i] as MarianModel),
    }));
  }

  /** Whether a request for this pair has a route, directly or through English. */
  supports(source: string, target: string): boolean {
    return planRoute(this.servingInfo(), source, target) !== undefined;
  }

  /** The installed models' pairs, and the pairs two of them make through English. */
  async languagePairs(): Promise<PairCoverage> {
    return coverageOf((source, target) => this.supports(source, target));
  }

  async translate(request: EngineRequest, signal: AbortSignal): Promise<EngineItem[]> {
    signal.throwIfAborted();
    if (request.source === 'auto') {
      throw new EngineError(
        'offline',
        'unsupported',
        'offline models need a known source language, not auto',
      );
    }
    const route = planRoute(this.servingInfo(), request.source, request.target);
    if (!route) {
      throw new EngineError(
        'offline',
        'unsupported',
        `no offline model for ${request.source} -> ${request.target}`,
      );
    }
    // Asked at once, the texts join the same decoding batches; a text the model fails is that text's.
    return Promise.all(
      request.texts.map((text) =>
        this.translateText(route, text, signal).catch((err: unknown) => {
          signal.throwIfAborted();
          if (err instanceof EngineError) return err;
          throw err;
        }),
      ),
    );
  }

  private async translateText(route: readonly InstalledModel[], input: string, signal: AbortSignal) {
    // Whitespace has nothing to translate; the models would answer with nothing and look broken.
    if (input.trim() === '') return { text: input, truncated: false };
    let text = input;
    for (const step of route) {
      const model = this.servingModels().find(({ info }) => info === step) as MarianModel;
      text = await this.translateStep(model, text, step.target, signal);
    }
    return { text, truncated: false };
  }

  /** Releases every loaded onnxruntime session. */
  async close(): Promise<void> {
    await Promise.all(this.models.map((model) => model.release()));
  }

  private async translateStep(model: MarianModel, text: string, target: string, signal: AbortSignal) {
    const started = performance.now();
    try {
      const output = await model.translate(text, target, signal);
      this.logger?.debug(
        { model: model.info.name, ms: Math.round(performance.now() - started) },
        'offline translation step',
      );
      return output;
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof EngineError) throw err;
      // onnxruntime and tokenizer failures: this model cannot do this text; let the chain move on.
      throw new EngineError(
        'offline',
        'rejected',
        `model ${model.info.name} failed: ${(err as Error).message}`,
        undefined,
        {
          cause: err,
        },
      );
    }
  }

  /** The first model of each pair (real before test, then by name, as discovery sorted them). */
  private servingModels(): MarianModel[] {
    return this.models.filter(
      ({ info }, i) =>
        this.models.findIndex(
          (other) =>
            sameLanguage(other.info.source, info.source) && sameLanguage(other.info.target, info.target),
        ) === i,
    );
  }

  private servingInfo(): InstalledModel[] {
    return this.servingModels().map((model) => model.info);
  }
}

/** Shorthand for `OfflineEngine.open({ modelsDir, ...options })`. */
export function createOfflineEngine(
  modelsDir: string,
  options: Omit<OfflineEngineOptions, 'modelsDir'> = {},
): Promise<OfflineEngine> {
  return OfflineEngine.open({ modelsDir, ...options });
}
