import { startService, type ServiceContext, type ServiceParts } from '@tp/platform';
import { createLogger, scrapedGauge } from '@tp/runtime';

import { ClassifyText } from './classify/classify-text.js';
import { classifyRoutes } from './classify/classify.routes.js';
import { ResultCache } from './classify/result-cache.js';
import type { NliConfig } from './config.js';
import { configRoutes } from './config/nli-config.routes.js';
import { NliConfigStore } from './config/nli-config.store.js';
import { DetectText } from './detect/detect-text.js';
import { detectRoutes } from './detect/detect.routes.js';
import { ModelSlot } from './model/index.js';
import { statusRoutes } from './status/status.routes.js';

/**
 * Internal NLI classification service (port 3005): ONNX model, result cache in Redis, configuration
 * in Postgres. It neither produces nor consumes Kafka messages, so Kafka is not one of its dependencies.
 */
export async function startNli(config: NliConfig) {
  // The model loads before the port opens, so the first request finds it ready. startService makes
  // its own logger later; this one has the same settings.
  const bootLogger = createLogger('nli', config.LOG_LEVEL);
  const slot = await ModelSlot.open({
    dir: config.NLI_MODEL_DIR,
    allowTestModel: config.ALLOW_TEST_MODELS,
    required: config.NLI_MODEL_REQUIRED,
    logger: bootLogger,
  });
  try {
    return await startService({
      name: 'nli',
      config,
      needs: { postgres: true, redis: true },
      compose: (context) => composeNli(config, context, slot),
    });
  } catch (err) {
    await slot.close();
    throw err;
  }
}

/** The nli service's composition root: the stores, the cache and the use cases, then their routes. */
function composeNli(
  config: NliConfig,
  { deps, logger, metrics }: ServiceContext,
  slot: ModelSlot,
): ServiceParts {
  if (!deps.orm) throw new Error('nli needs Postgres');
  scrapedGauge(metrics, {
    name: 'nli_model_ready',
    help: 'Whether the NLI model is loaded (1) or not (0: classification answers 503 NLI_MODEL_NOT_READY)',
    read: () => (slot.state.status === 'ready' ? 1 : 0),
  });
  const limits = { maxTextChars: config.NLI_MAX_TEXT_CHARS, maxLabels: config.NLI_MAX_LABELS };
  const store = new NliConfigStore(deps.orm, config.NLI_CONFIG_CACHE_MS, logger);
  const cache = new ResultCache(deps.redis, config.REDIS_KEY_PREFIX, config.NLI_CACHE_TTL_S);
  const classify = new ClassifyText(slot, cache);
  const detect = new DetectText(classify, store);
  return {
    checks: [slot.check()],
    mount: (app) => {
      classifyRoutes(app, { classify, store, limits });
      detectRoutes(app, { detect, limits });
      configRoutes(app, { store, limits });
      statusRoutes(app, { slot, store, cache });
    },
    // Released after the server stopped taking requests, so no run is cut off.
    tasks: [{ start: async () => undefined, stop: () => slot.close() }],
  };
}
