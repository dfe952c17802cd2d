import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

export { SpanKind, type Span } from '@opentelemetry/api';

/** The instrumentation scope of the platform's own spans. */
const TRACER_NAME = 'translation-platform';

export interface TracingOptions {
  /** Extra span processors (tests: an in-memory exporter). */
  readonly spanProcessors?: readonly SpanProcessor[];
}

let provider: TracerProvider | undefined;

/**
 * Sets up OpenTelemetry once per process, before anything else runs: W3C trace context propagation,
 * an async-local context, and a tracer provider, so spans have ids and context travels (HTTP, outbox,
 * Kafka) even when nothing is exported (then the traces this process starts are not recorded). Spans are exported by OTLP over HTTP only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; the exporter reads
 * the other `OTEL_EXPORTER_OTLP_*` variables itself. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn exporting off; `OTEL_SERVICE_NAME` overrides the service name;
 * `OTEL_TRACES_SAMPLER`/`_ARG` pick the sampler (default parentbased_always_on).
 */
export function initTracing(service: string, options: TracingOptions = {}, env = process.env): void {
  if (provider) return;
  const processors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (exportsTraces(env)) processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || service }),
    // With nowhere to send spans, the process records none of its own: a trace it starts gets real
    // ids that travel as before, but unsampled spans cost no attributes, events or end processing
    // (about 8 % of the worker's and the translator's CPU in bench:pipeline). A caller's sampled
    // trace is still recorded and passed on as sampled, so the decision of whoever exports holds.
    sampler:
      processors.length > 0 ? samplerOf(env) : new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    spanProcessors: processors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
}

/** Sends the spans still buffered; call when the process stops. */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
}

/** Whether spans are exported: an OTLP endpoint is set and neither the SDK nor the exporter is off. */
export function exportsTraces(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

function samplerOf(env: NodeJS.ProcessEnv): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const ratioSampler = new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1);
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratioSampler;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratioSampler });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Records a thrown error on its span (exception event, status ERROR) and returns it to rethrow. */
function failSpan(span: Span, err: unknown): unknown {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  return err;
}

export interface SpanOptions {
  readonly kind?: SpanKind;
  /** The parent; the active context when not given. */
  readonly parent?: Context;
  readonly links?: readonly Link[];
}

/**
 * Runs `fn` in a new span (a child of the active span, or of `options.parent`), made active for
 * everything `fn` starts; ends it when `fn` settles, recording a thrown error on it.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T> | T,
  options: SpanOptions = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = startSpan(name, attributes, options);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    throw failSpan(span, err);
  } finally {
    span.end();
  }
}

/** Starts a span the caller ends (for work that does not fit one function call, like an HTTP answer). */
export function startSpan(name: string, attributes: Attributes, options: SpanOptions = {}): Span {
  const parent = options.parent ?? context.active();
  const links = options.links ? [...options.links] : undefined;
  return trace
    .getTracer(TRACER_NAME)
    .startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes, ...(links ? { links } : {}) },
      parent,
    );
}

/** The W3C trace context headers (`traceparent`, `tracestate`) of a context; none when it has no span. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

type HeaderValue = Buffer | string | readonly (Buffer | string)[] | undefined;

/** The context a message's or request's `traceparent`/`tracestate` headers name (ROOT when none). */
export function contextFromHeaders(headers: Readonly<Record<string, HeaderValue>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, HEADER_GETTER);
}

/** Reads a carrier of incoming headers; one for every call (made once, not per request). */
const HEADER_GETTER = {
  keys: (carrier: Readonly<Record<string, HeaderValue>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, HeaderValue>>, key: string) => {
    const raw = carrier[key];
    const first = Array.isArray(raw) ? (raw as (Buffer | string)[])[0] : (raw as Buffer | string | undefined);
    return first === undefined ? undefined : first.toString();
  },
};

/** The active context, to run something in it later (inContext). */
export const activeContext = (): Context => context.active();

/** Runs `fn` with `ctx` active. */
export function inContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** `trace_id` and `span_id` of the active span, for log lines; empty outside a span. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/** The active span's context as a span link (e.g. a replay linking the trace it replays). */
export function linkTo(ctx: Context): Link[] {
  const span = trace.getSpan(ctx);
  const ids = span?.spanContext();
  return ids && isSpanContextValid(ids) ? [{ context: ids }] : [];
}

/** The span a context holds, if any. */
export const spanOf = (ctx: Context): Span | undefined => trace.getSpan(ctx);

/** `ctx` with `span` as its active span. */
export const contextWithSpan = (ctx: Context, span: Span): Context => trace.setSpan(ctx, span);

export type { Context } from '@opentelemetry/api';
