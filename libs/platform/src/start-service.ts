import type { Server } from 'node:http';

import {
  closeServer,
  createHttpApp,
  createLogger,
  createMetrics,
  finishHttpApp,
  listen,
  type DependencyCheck,
  type EdgeOptions,
  type ErrorShape,
  type Logger,
  type RunningService,
  initTracing,
} from '@tp/runtime';
import { kafkaRequestsMetric } from '@tp/kafka';
import type { Express } from 'express';
import type { Registry } from 'prom-client';

import { connectDependencies, type Dependencies, type Needs } from './dependencies.js';
import type { CommonSettings } from './settings.js';

export interface ServiceContext {
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly deps: Dependencies;
}

/** Something a service runs beside its HTTP server (a consumer, the outbox relay...). */
export interface BackgroundTask {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a service's composition function builds from the connected dependencies: every part made
 * once, then handed to the platform to mount and run.
 */
export interface ServiceParts {
  /** Readiness checks besides the dependencies' own. */
  readonly checks?: readonly DependencyCheck[];
  /** For a process facing the public: a guard before every route, who reads /metrics, a terse /ready. */
  readonly edge?: EdgeOptions;
  /** Adds the service's routes, built from the parts already made. */
  readonly mount?: (app: Express) => void;
  /** Started in order once the port is open; stopped in reverse once it is closed. */
  readonly tasks?: readonly BackgroundTask[];
}

export interface ServiceDefinition<C extends CommonSettings & { PORT: number }> {
  readonly name: string;
  readonly config: C;
  readonly needs: Needs;
  /** The service's composition root: builds every part it runs, once. */
  readonly compose: (context: ServiceContext) => ServiceParts | Promise<ServiceParts>;
  /** Answers in another shape than the envelope for the errors of some paths (the gateway's /v1). */
  readonly errorShapes?: readonly ErrorShape[];
}

/**
 * The common life of a process: logger, metrics, dependencies (failing fast on bad settings), HTTP
 * with /health, /ready and /metrics, background tasks; stop() undoes it in reverse order: stop taking
 * requests, drain background work, close connections.
 */
export async function startService<C extends CommonSettings & { PORT: number }>(
  definition: ServiceDefinition<C>,
): Promise<
  RunningService & { readonly context: ServiceContext; readonly port: number; readonly server: Server }
> {
  const { name, config } = definition;
  initTracing(name);
  const logger = createLogger(name, config.LOG_LEVEL);
  const metrics = createMetrics(name);
  const deps = await connectDependencies(name, config, logger, definition.needs);
  if (deps.kafka) kafkaRequestsMetric(metrics);
  const context: ServiceContext = { logger, metrics, deps };
  const tasks: BackgroundTask[] = [];
  let listening: Server | undefined;
  try {
    const parts = await definition.compose(context);
    const app = createHttpApp({
      service: name,
      logger,
      metrics,
      checks: [...deps.checks, ...(parts.checks ?? [])],
      edge: parts.edge,
    });
    parts.mount?.(app);
    finishHttpApp(app, { errorShapes: definition.errorShapes });
    const server = await listen(app, config.PORT, config.HOST, 'PORT');
    listening = server;
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    for (const task of parts.tasks ?? []) {
      await task.start();
      tasks.push(task);
    }
    logger.info({ host: config.HOST, port }, `${name} started`);
    return {
      logger,
      context,
      port,
      /** The HTTP server, for tests that watch its connections. */
      server,
      async stop() {
        await closeServer(server);
        for (const task of tasks.reverse()) {
          await task
            .stop()
            .catch((err: unknown) => logger.error({ err }, 'background task did not stop cleanly'));
        }
        await deps.close();
      },
    };
  } catch (err) {
    if (listening) await closeServer(listening);
    for (const task of tasks.reverse()) await task.stop().catch(() => undefined);
    await deps.close();
    throw err;
  }
}
