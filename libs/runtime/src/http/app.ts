import type { IncomingMessage } from 'node:http';

import express, { type Express, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';

import type { Logger } from '../logger.js';
import { checkReadiness, type DependencyCheck, type ReadinessReport } from '../readiness.js';
import { requestContext, requestTracker } from './request-tracking.js';

export interface HttpAppOptions {
  readonly service: string;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly checks: readonly DependencyCheck[];
  readonly edge?: EdgeOptions;
}

/** What a process facing the public adds to the common routes (the gateway). */
export interface EdgeOptions {
  /** Runs before every route but /health (the gateway's per-address rate limit). */
  readonly guard?: RequestHandler;
  /** Whether this request may read /metrics; others get 404. */
  readonly metricsAllowed?: (req: IncomingMessage) => boolean;
  /** /ready answers each dependency's state without its error text (that stays in the admin status). */
  readonly terseReadiness?: boolean;
}

/**
 * Express app with what every process serves: request/correlation ids (echoed as x-request-id),
 * JSON access logs, request metrics, GET /health (liveness), /ready (dependencies), /metrics.
 * Add routes, then call finishHttpApp() for the 404 and error mapping.
 */
export function createHttpApp({ service, logger, metrics, checks, edge }: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are not cached by clients; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('logger', logger);
  app.use(requestContext(requestTracker(logger, metrics)));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', service, uptime_s: Math.round(process.uptime()) });
  });
  if (edge?.guard) app.use(edge.guard);
  app.get('/ready', async (_req, res) => {
    const report = await checkReadiness(checks);
    const shown = edge?.terseReadiness ? terse(report) : report;
    res.status(report.status === 'ready' ? 200 : 503).json({ service, ...shown });
  });
  app.get('/metrics', async (req, res, next) => {
    if (edge?.metricsAllowed && !edge.metricsAllowed(req)) {
      next();
      return;
    }
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  return app;
}

/** The report without error or reason text: raw driver messages name hosts, users and versions. */
const terse = (report: ReadinessReport): ReadinessReport => ({
  status: report.status,
  dependencies: Object.fromEntries(
    Object.entries(report.dependencies).map(([name, { status, required, latency_ms }]) => [
      name,
      { status, required, latency_ms },
    ]),
  ),
});
