import { COMMON_TUNING, commonSettings, NLI_TEXT_LIMIT, portSetting, sharedSettings } from '@tp/platform';
import { configLoader, env } from '@tp/runtime';
import { z } from 'zod';

/** Where `npm run models:pull -- nli` installs the spec's model. */
export const DEFAULT_NLI_MODEL_DIR = 'var/models/nli/mdeberta-v3-base-xnli-multilingual-nli-2mil7';

/** NLI service settings (environment variables); every one is listed in docs/configuration.md. */
export const nliSettings = z.object({
  ...commonSettings,
  PORT: portSetting(3005),
  NLI_MODEL_DIR: env
    .string(DEFAULT_NLI_MODEL_DIR)
    .describe(
      'the NLI model folder (`npm run models:pull -- nli`); empty or missing: the service runs, `/ready` shows the model degraded and checks answer 503 `NLI_MODEL_NOT_READY`',
    ),
  NLI_MODEL_REQUIRED: env
    .bool(false)
    .describe(
      '`true`: the service is not ready without its model (an orchestrator holds a rollout whose model is missing)',
    ),
  ALLOW_TEST_MODELS: sharedSettings.ALLOW_TEST_MODELS,
});

/**
 * Named constants of the nli service (tests shorten them in-process):
 * - NLI_CACHE_TTL_S: a cached classification lives a day, like a hot-cache translation (verdicts are
 *   not cached, so a new threshold applies at once);
 * - NLI_CONFIG_CACHE_MS: how long a process trusts its copy of nli_config; a PUT through another
 *   process applies within it;
 * - NLI_MAX_TEXT_CHARS: longest text of a check (the model reads 512 tokens of a pair);
 * - NLI_MAX_LABELS: most candidate labels of one request or of the configuration: each label is one
 *   model run, so this bounds a request's work.
 */
export const NLI_TUNING = {
  NLI_CACHE_TTL_S: 86_400,
  NLI_CONFIG_CACHE_MS: 1000,
  NLI_MAX_TEXT_CHARS: NLI_TEXT_LIMIT,
  NLI_MAX_LABELS: 20,
  ...COMMON_TUNING,
};

export const loadNliConfig = configLoader(nliSettings, NLI_TUNING);

export type NliConfig = ReturnType<typeof loadNliConfig>;
