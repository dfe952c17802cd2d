// The preload of every service: `node --import @tp/runtime/instrument services/<name>/dist/main.js`.
// It runs before the service's first import, so the maintained OpenTelemetry instrumentations can
// patch modules as they load. The services are ES modules, which `require` hooks never see: the
// import-in-the-middle loader hook (registered here with `module.register`, Node 20.6+) wraps them, and
// the message channel makes it wrap only the modules an instrumentation names (pg, pg-pool,
// @redis/client), not every module the process loads. Spans go to the global tracer provider that
// initTracing (libs/runtime/src/tracing.ts) sets up when the service starts. All of it only when
// spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT set, see `instrument` below).
//
// - pg: a CLIENT span per query (and pool connect), a child of the active span;
// - @redis/client (node-redis 4-6): a CLIENT span per command;
// - undici (global fetch, the undici package): a CLIENT span per outgoing request, whose context goes
//   out in the `traceparent` header (engine calls, gateway -> translator/nli).
// Incoming HTTP keeps the platform's own SERVER span (libs/runtime/src/http), named by route. Kafka
// keeps the platform's own producer/consumer spans (libs/kafka), which carry the context through the
// outbox too.

import { register } from 'node:module';

import { exportsTraces } from './tracing.js';

/**
 * Registers the loader hook and the instrumentations. Only when spans are exported: unexported, their
 * spans cost about 100 µs of CPU per query + Redis command pair (twice the client-side CPU of the
 * pair without them), 0.9 s more start-up and 20 MB more memory (the loader thread), for spans nobody
 * sees; so without an endpoint the modules are not even imported.
 */
async function instrument(): Promise<void> {
  const [{ registerInstrumentations }, { PgInstrumentation }, { RedisInstrumentation }, undici, iitm] =
    await Promise.all([
      import('@opentelemetry/instrumentation'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-redis'),
      import('@opentelemetry/instrumentation-undici'),
      import('import-in-the-middle'),
    ]);
  const { registerOptions, waitForAllMessagesAcknowledged } = iitm.createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  registerInstrumentations({
    instrumentations: [
      // No span for a call outside any trace (the relay's idle polls, health probes): noise.
      new PgInstrumentation({
        requireParentSpan: true,
        requestHook: (span, { query }) => span.setAttributes(statementAttributes(query.text)),
      }),
      new RedisInstrumentation({ requireParentSpan: true }),
      new undici.UndiciInstrumentation({
        requireParentforSpans: true,
        startSpanHook: (request) => withoutQuery(request.origin, request.path),
      }),
    ],
  });
  // The loader thread has the list of modules to wrap before the service's first import.
  await waitForAllMessagesAcknowledged();
}

/**
 * A statement's attributes without its literals: MikroORM inlines the values (texts, translations,
 * key hashes, whole Avro payloads) into the SQL it sends, and exported spans must not carry them.
 */
export function statementAttributes(sql: string): Record<string, string> {
  return { 'db.query.text': withoutStringLiterals(sql) };
}

/** `sql` with each '...' literal (doubled quotes inside) as '?'; one pass. */
function withoutStringLiterals(sql: string): string {
  let out = '';
  let from = 0;
  for (let open = sql.indexOf("'"); open >= 0; open = sql.indexOf("'", from)) {
    let close = sql.indexOf("'", open + 1);
    while (close >= 0 && sql[close + 1] === "'") close = sql.indexOf("'", close + 2);
    out += `${sql.slice(from, open)}'?'`;
    if (close < 0) return out;
    from = close + 1;
  }
  return out + sql.slice(from);
}

/**
 * An outgoing request's URL attributes without its query string, which can hold a user's text
 * (MyMemory's `q`) or an e-mail address (its `de`); exported spans must not.
 */
export function withoutQuery(origin: string, path: string): Record<string, string> {
  const at = path.indexOf('?');
  if (at < 0) return {};
  return { 'url.full': new URL(path.slice(0, at), origin).href, 'url.query': '?REDACTED' };
}

if (exportsTraces(process.env)) await instrument();
