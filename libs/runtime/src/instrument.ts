// The preload of every service: `node --import @tp/runtime/instrument services/<name>/dist/main.js`.
// It runs before the service's first import, so the maintained OpenTelemetry instrumentations can
// patch modules as they load. The services are ES modules, which `require` hooks never see: the
// import-in-the-middle loader hook (registered here with `module.register`, Node 20.6+) wraps them, and
// the message channel makes it wrap only the modules an instrumentation names (pg, pg-pool,
// @redis/client), not every module the process loads. Spans go to the global tracer provider that
// initTracing (libs/runtime/src/tracing.ts) sets up when the service starts.
//
// - pg: a CLIENT span per query (and pool connect), a child of the active span;
// - @redis/client (node-redis 4-6): a CLIENT span per command;
// - undici (global fetch, the undici package): a CLIENT span per outgoing request, whose context goes
//   out in the `traceparent` header (engine calls, gateway -> translator/nli).
// Incoming HTTP keeps the platform's own SERVER span (libs/runtime/src/http): it covers the gateway's
// fast lane, which runs before Express, and is named by route. Kafka keeps the platform's own
// producer/consumer spans (libs/kafka), which carry the context through the outbox too.

import { register } from 'node:module';

import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { RedisInstrumentation } from '@opentelemetry/instrumentation-redis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { createAddHookMessageChannel } from 'import-in-the-middle';

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

registerInstrumentations({
  instrumentations: [
    // No span for a query outside any trace (the relay's polling, health checks): noise, not signal.
    new PgInstrumentation({ requireParentSpan: true }),
    new RedisInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ],
});

await waitForAllMessagesAcknowledged();
