import { describe, expect, it } from '@jest/globals';

import { activeTraceIds, contextFromHeaders, initTracing, traceHeaders, withSpan } from './tracing.js';

// A process with nowhere to export spans (no OTLP endpoint, no span processor): its own traces are not
// recorded, but ids and context travel as they do when exporting, and a caller's sampled trace stays
// sampled. (initTracing sets process-wide state once; this file is its own module registry.)
initTracing('unit-test', {}, {});

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

describe('tracing when nothing is exported', () => {
  it('starts an unrecorded trace whose ids still reach headers and log fields', async () => {
    const seen = await withSpan('outer', { 'tp.test': 1 }, (outer) =>
      withSpan('inner', {}, (inner) => ({
        outer: outer.spanContext(),
        recording: [outer.isRecording(), inner.isRecording()],
        inner: inner.spanContext(),
        headers: traceHeaders(),
        logged: activeTraceIds(),
      })),
    );
    expect(seen.recording).toEqual([false, false]);
    expect(seen.inner.traceId).toBe(seen.outer.traceId);
    expect(seen.inner.spanId).not.toBe(seen.outer.spanId);
    const [, traceId, spanId, flags] = TRACEPARENT.exec(seen.headers.traceparent ?? '') ?? [];
    expect({ traceId, spanId, flags }).toEqual({
      traceId: seen.inner.traceId,
      spanId: seen.inner.spanId,
      flags: '00',
    });
    expect(seen.logged).toEqual({ trace_id: seen.inner.traceId, span_id: seen.inner.spanId });
  });

  it("records a caller's sampled trace and passes it on as sampled", async () => {
    const callerTrace = 'ab'.repeat(16);
    const parent = contextFromHeaders({ traceparent: `00-${callerTrace}-${'cd'.repeat(8)}-01` });
    const seen = await withSpan(
      'handle',
      {},
      (span) => ({ recording: span.isRecording(), headers: traceHeaders() }),
      {
        parent,
      },
    );
    expect(seen.recording).toBe(true);
    const [, traceId, , flags] = TRACEPARENT.exec(seen.headers.traceparent ?? '') ?? [];
    expect({ traceId, flags }).toEqual({ traceId: callerTrace, flags: '01' });
  });

  it("follows a caller's unsampled trace without recording it", async () => {
    const callerTrace = 'ef'.repeat(16);
    const parent = contextFromHeaders({ traceparent: `00-${callerTrace}-${'12'.repeat(8)}-00` });
    const seen = await withSpan(
      'handle',
      {},
      (span) => ({ recording: span.isRecording(), headers: traceHeaders() }),
      {
        parent,
      },
    );
    expect(seen.recording).toBe(false);
    expect(seen.headers.traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-00$`));
  });
});
