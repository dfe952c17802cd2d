import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** Where `npm run models:pull -- nli` installs the spec's model. */
export const DEFAULT_NLI_MODEL_DIR = 'var/models/nli/mdeberta-v3-base-xnli-multilingual-nli-2mil7';

/** NLI service settings (environment variables); documented in README "Configuration". */
export const nliSettings = z.object({
  ...commonSettings,
  PORT: env.port(3005),
  /**
   * Folder of the NLI model (config.json, tokenizer.json, onnx/model_quantized.onnx or model.onnx),
   * relative to the working directory. Empty or missing: the service runs, /ready shows the model
   * degraded and /classify and /detect answer 503 NLI_MODEL_NOT_READY.
   */
  NLI_MODEL_DIR: env.string(DEFAULT_NLI_MODEL_DIR),
  /**
   * Whether the service is ready only with its model loaded (`true`: an orchestrator holds a rollout
   * whose model is missing). Default: ready without it, the model shown degraded on /ready.
   */
  NLI_MODEL_REQUIRED: env.bool(false),
  /** Load a model marked `_tp_test_model` (the tiny keyword model). Off, so a toy never moderates by accident. */
  NLI_ALLOW_TEST_MODEL: env.bool(false),
  /** Longest text accepted by /classify and /detect, in characters (Unicode code points). */
  NLI_MAX_TEXT_CHARS: env.positiveInt(2000),
  /** Most candidate labels in one /classify request or in the configuration; each label costs one pair. */
  NLI_MAX_LABELS: env.positiveInt(20),
  /** Lifetime of a cached classification in Redis. */
  NLI_CACHE_TTL_S: env.positiveInt(86_400),
  /**
   * How long this process trusts its copy of the nli_config row. A PUT through this process applies at
   * once; one through another process applies within this time.
   */
  NLI_CONFIG_CACHE_MS: env.nonNegativeInt(1000),
  /** Prefix of the Redis keys, shared with the other services. */
  REDIS_KEY_PREFIX: env.string('tp:'),
});

export type NliConfig = z.infer<typeof nliSettings>;

export const loadNliConfig = (source: NodeJS.ProcessEnv = process.env): NliConfig =>
  parseEnv(nliSettings, source);
