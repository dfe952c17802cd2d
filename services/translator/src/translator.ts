import { resolve } from 'node:path';

import { startService, type BackgroundTask, type ServiceContext, type ServiceParts } from '@tp/platform';
import { createLogger, type Logger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import { HotCache } from '@tp/translation';

import { createChain, enginesCheck, type TranslationChain } from './chain/index.js';
import type { TranslatorConfig } from './config.js';
import { GlossaryDeletions } from './glossary/glossary-deletions.js';
import { GlossaryDirectory } from './glossary/glossary-directory.js';
import { EngineConsumers } from './consume-requests/engine-consumers.js';
import { chainOptions, onlineEngines } from './engines-from-config.js';
import { OfflineEngine, offlineSessionOptions } from './engines/offline/index.js';
import { CompletedTranslationsOutbox } from './translate/completed-translations.outbox.js';
import { openLanguageDetector, type LanguageDetector } from './translate/detect-language.js';
import { translateRoutes } from './translate/translate.routes.js';
import { testChainRoutes } from './translate/test-chain.routes.js';
import { TranslateText } from './translate/translate-text.js';

/** The models loaded before the port opens. */
interface LoadedModels {
  readonly offline: OfflineEngine;
  readonly detector: LanguageDetector;
}

/**
 * Internal translation service (port 3004): the hot cache in Redis, the engine chain, the Postgres
 * outbox through which completed translations leave for Kafka, and the engine consumers of the
 * pipeline (consume-requests/).
 */
export async function startTranslator(config: TranslatorConfig) {
  const models = await loadModels(config);
  try {
    return await startService({
      name: 'translator',
      config,
      needs: { postgres: true, redis: true, kafka: true },
      compose: (context) => composeTranslator(config, context, models),
    });
  } catch (err) {
    await models.offline.close();
    throw err;
  }
}

/**
 * The offline models and the language detector load before the port opens, so the first request
 * finds them ready. startService makes its own logger later; this one has the same settings.
 */
async function loadModels(config: TranslatorConfig): Promise<LoadedModels> {
  const bootLogger = createLogger('translator', config.LOG_LEVEL);
  const [offline, detector] = await Promise.all([
    OfflineEngine.open({
      modelsDir: resolve(config.MODELS_DIR),
      allowTestModels: config.ALLOW_TEST_MODELS,
      logger: bootLogger,
      sessionOptions: offlineSessionOptions(config.OFFLINE_THREADS),
    }),
    openLanguageDetector(),
  ]);
  return { offline, detector };
}

/**
 * The translator's composition root: the engines and their chain, the outbox sink, the glossaries,
 * the use case, then its routes and the engine consumers that share it.
 */
function composeTranslator(
  config: TranslatorConfig,
  { deps, logger, metrics }: ServiceContext,
  { offline, detector }: LoadedModels,
): ServiceParts {
  if (!deps.orm || !deps.kafka) throw new Error('translator needs Postgres and Kafka');
  const engines = onlineEngines(config);
  const chain = translatorChain(engines, offline, logger, metrics, config);
  const deletions = glossaryDeletions(engines, deps.orm, logger, config);
  const sink = new CompletedTranslationsOutbox({
    orm: deps.orm,
    codec: new EventCodec(),
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    logger,
    metrics,
    lingerMs: config.TRANSLATION_OUTBOX_LINGER_MS,
  });
  const translateText = new TranslateText({
    chain,
    cache: new HotCache(deps.redis, config.REDIS_KEY_PREFIX),
    detector,
    sink,
    maxTextChars: config.MAX_TEXT_CHARS,
    metrics,
    glossaries: new GlossaryDirectory(deps.orm, config.GLOSSARY_REFRESH_MS),
  });
  const consumers = new EngineConsumers({
    kafka: deps.kafka,
    translateText,
    settings: config,
    logger: logger.child({ component: 'engine-consumers' }),
    metrics,
  });
  logEngines(logger, chain, offline);
  return {
    // Not required: POST /translate is served without the consumers; /ready shows why they are not up.
    checks: [
      { name: 'engine-consumers', required: false, check: () => consumers.check() },
      enginesCheck(chain),
    ],
    mount: (app) => {
      testChainRoutes(app, { chain, detector, maxTextChars: config.MAX_TEXT_CHARS });
      translateRoutes(app, {
        translateText,
        chain,
        offlineModels: () => offline.installedModels(),
        maxTextChars: config.MAX_TEXT_CHARS,
        detector,
      });
    },
    // Stopped in reverse: the consumers finish before the sink drains and the models close.
    tasks: [drainOnStop(sink, offline), pairLists(chain), ...(deletions ? [deletions] : []), consumers],
  };
}

/** Runs after the server stopped taking requests and before the database closes. */
const drainOnStop = (sink: CompletedTranslationsOutbox, offline: OfflineEngine): BackgroundTask => ({
  start: async () => undefined,
  stop: async () => {
    await sink.drain();
    await offline.close();
  },
});

/** The engines' language pairs, read before the consumers start, then kept fresh. */
const pairLists = (chain: TranslationChain): BackgroundTask => ({
  start: async () => {
    await chain.directory.refresh(true);
    chain.directory.start();
  },
  stop: async () => chain.directory.stop(),
});

/** The sweep that deletes at the engine the glossaries deleted here: only for an engine that keeps them. */
function glossaryDeletions(
  engines: ReturnType<typeof onlineEngines>,
  orm: ConstructorParameters<typeof GlossaryDeletions>[0],
  logger: Logger,
  config: TranslatorConfig,
): GlossaryDeletions | undefined {
  const remove = engines.primary?.removeDeletedGlossaries?.bind(engines.primary);
  if (!remove) return undefined;
  return new GlossaryDeletions(orm, remove, logger.child({ component: 'glossary-deletions' }), {
    intervalMs: config.GLOSSARY_DELETIONS_SWEEP_MS,
  });
}

function translatorChain(
  engines: ReturnType<typeof onlineEngines>,
  offline: OfflineEngine,
  logger: Logger,
  metrics: ServiceContext['metrics'],
  config: TranslatorConfig,
): TranslationChain {
  // No models: the slot is "not configured" rather than an engine that refuses every pair.
  const hasModels = offline.installedModels().length > 0;
  return createChain({
    ...engines,
    ...(hasModels ? { offline } : {}),
    options: {
      ...chainOptions(config),
      metrics,
      pairs: {
        ...chainOptions(config).pairs,
        onError: (engine, err) =>
          logger.warn({ engine, err }, 'could not read the language pairs of an engine'),
      },
    },
  });
}

/** Which engine fills each slot, and what the offline engine can do: the first thing an operator checks. */
function logEngines(logger: Logger, chain: TranslationChain, offline: OfflineEngine): void {
  const slots = Object.fromEntries(
    chain.status().map((slot) => [slot.slot, slot.engine ?? 'not configured']),
  );
  const models = offline.installedModels();
  logger.info(
    { engines: slots, offlineModels: models.map((m) => `${m.name} (${m.source}->${m.target})`) },
    'translation engines configured',
  );
  if (chain.status().every((slot) => !slot.configured)) {
    logger.warn(
      'no translation engine is configured: every translation answers 400 UNSUPPORTED_LANGUAGE_PAIR',
    );
  }
  if (models.length > 0 && models.every((model) => model.testModel)) {
    logger.info(
      { offlineModels: models.map((m) => m.name) },
      'the offline engine has only test models (toy word lists for tests, not translators); real ones: `npm run models:pull`',
    );
  }
}
