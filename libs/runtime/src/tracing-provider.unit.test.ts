import { describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';

import { startSpan, withSpan } from './tracing.js';

// Spans are started by the global provider's tracer: a provider set after another (tests do, after
// trace.disable()) gets the spans started after it.
function installProvider(): { readonly finished: () => Promise<ReadableSpan[]> } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.disable();
  trace.setGlobalTracerProvider(provider);
  return { finished: () => provider.forceFlush().then(() => exporter.getFinishedSpans()) };
}

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

describe("the platform's tracer", () => {
  it('follows the global tracer provider when it is replaced', async () => {
    const first = installProvider();
    await withSpan('one', {}, () => undefined);
    startSpan('two', {}).end();
    const second = installProvider();
    await withSpan('three', {}, () => undefined);
    startSpan('four', {}).end();
    expect((await first.finished()).map((s) => s.name)).toEqual(['one', 'two']);
    expect((await second.finished()).map((s) => s.name)).toEqual(['three', 'four']);
  });

  it('passes the links it is given, and none when given none', async () => {
    const exporter = installProvider();
    const linked = startSpan('linked', {});
    startSpan('with', {}, { links: [{ context: linked.spanContext() }] }).end();
    startSpan('without', {}).end();
    const [withLinks, without] = await exporter.finished();
    expect(withLinks?.links.map((l) => l.context.spanId)).toEqual([linked.spanContext().spanId]);
    expect(without?.links).toEqual([]);
  });
});
