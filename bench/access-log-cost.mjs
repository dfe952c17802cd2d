// What the access log costs a request: an Express app answering POST /api/v1/translate (express.json,
// a fixed JSON answer) with no access log, with the runtime's middleware (`requestContext`: request
// id, duration histogram, one line written by pino), and with pino-http configured to write the same
// line (genReqId, customLogLevel, custom objects and messages) plus the same histogram. Each round
// starts one server process per variant in turn, loads it with autocannon (50 connections, 2 s of
// warm-up) and prints its CPU time (user + system, /proc/<pid>/stat) per request.
// Needs a build and pino-http: `npm run build && npm install --no-save pino-http@11 &&
// node bench/access-log-cost.mjs [seconds=5] [rounds=5]`. Lines go to /dev/null.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const VARIANTS = ['none', 'pino', 'pino-http'];

if (process.argv[2] === '--serve') await serve(process.argv[3]);
else await measure(Number(process.argv[2] ?? 5), Number(process.argv[3] ?? 5));

async function serve(variant) {
  const express = require('express');
  const { Registry } = require('prom-client');
  const runtime = await import('../libs/runtime/dist/index.js');
  const logger = runtime.createLogger('bench');
  const metrics = new Registry();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (variant === 'pino') app.use(runtime.requestContext(runtime.requestTracker(logger, metrics)));
  if (variant === 'pino-http') app.use(pinoHttpLog(logger, runtime.httpDurationHistogram(metrics)));
  app.post('/api/v1/translate', express.json(), (_req, res) => {
    res.json({ translated: 'hola mundo', from: 'en', to: 'es' });
  });
  const server = app.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** pino-http writing the line `requestContext` writes (same fields, levels and messages). */
function pinoHttpLog(logger, histogram) {
  const { pinoHttp } = require('pino-http');
  const REQUEST_ID = /^[\w.:-]{1,128}$/;
  const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);
  const started = Symbol('started');
  const route = (req, res) => String(req.route?.path ?? res.locals?.routeLabel ?? 'unmatched');
  const fields = (req, res) => ({
    correlation_id: req.headers['x-correlation-id'],
    method: req.method,
    url: req.originalUrl ?? req.url,
    remote: req.socket.remoteAddress,
    status: res.statusCode,
    ms: Math.round((performance.now() - req[started]) * 10) / 10,
  });
  return pinoHttp({
    logger: logger.child({}, { redact: [] }),
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'req_id' },
    genReqId(req, res) {
      req[started] = performance.now();
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      const correlation = req.headers['x-correlation-id'];
      if (typeof correlation !== 'string' || !REQUEST_ID.test(correlation))
        req.headers['x-correlation-id'] = id;
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel(req, res, err) {
      const path = route(req, res);
      const seconds = (performance.now() - req[started]) / 1000;
      histogram.labels({ method: req.method, route: path, status: String(res.statusCode) }).observe(seconds);
      if (QUIET_PATHS.has(path)) return 'silent';
      if (!res.writableEnded) return 'warn';
      return err || res.statusCode >= 500 ? 'error' : 'info';
    },
    customSuccessObject: fields,
    customErrorObject: fields,
    customSuccessMessage: (_req, res) => (res.writableEnded ? 'request completed' : 'request aborted'),
    customErrorMessage: () => 'request failed',
  });
}

async function measure(seconds, rounds) {
  const autocannon = require('autocannon');
  const cpuTicks = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const results = Object.fromEntries(VARIANTS.map((variant) => [variant, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const variant of VARIANTS) {
      const stdout = openSync('/dev/null', 'w');
      const server = fork(import.meta.filename, ['--serve', variant], {
        stdio: ['ignore', stdout, 'inherit', 'ipc'],
      });
      const port = await new Promise((resolve) => server.once('message', resolve));
      const load = (duration) =>
        autocannon({
          url: `http://127.0.0.1:${port}/api/v1/translate`,
          method: 'POST',
          connections: 50,
          duration,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'hello world', source: 'en', target: 'es' }),
        });
      await load(2);
      const before = cpuTicks(server.pid);
      const { requests } = await load(seconds);
      const us = ((cpuTicks(server.pid) - before) * 10_000) / requests.total;
      results[variant].push(us);
      console.log(
        `round ${round} ${variant}: ${requests.total} requests, ${us.toFixed(1)} µs CPU per request`,
      );
      server.send('stop');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }
  for (const [variant, figures] of Object.entries(results)) {
    const median = [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)];
    console.log(`${variant}: median ${median.toFixed(1)} µs CPU per request`);
  }
}
