import {
  contextFromHeaders,
  contextWithSpan,
  SpanKind,
  spanOf,
  startSpan,
  traceHeaders,
  withSpan,
  type Span,
} from '@tp/runtime';

import type { IncomingMessage, OutgoingMessage, TopicMessages } from './port.js';

/**
 * Kafka spans per the OpenTelemetry messaging semantic conventions. The W3C `traceparent` and
 * `tracestate` headers of a message name the span its consumers continue: the event codec writes the
 * context the event was made in; the producer replaces it with its own `send` span, a child of that
 * context; the consumer processes each message in a `process` span, a child of the header's span.
 */
const attributesOf = (topic: string, operation: 'send' | 'process') => ({
  'messaging.system': 'kafka',
  'messaging.destination.name': topic,
  'messaging.operation.type': operation,
  'messaging.operation.name': operation,
});

/** A topic's span name and attributes, made once per topic and operation instead of once per message. */
interface TopicSpan {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Our own topics, a few dozen at most; bounded all the same. */
const MAX_TOPIC_SPANS = 1000;
const topicSpans = new Map<string, TopicSpan>();

function topicSpan(topic: string, operation: 'send' | 'process'): TopicSpan {
  const key = `${operation} ${topic}`;
  let found = topicSpans.get(key);
  if (!found) {
    if (topicSpans.size >= MAX_TOPIC_SPANS) topicSpans.clear();
    found = { name: key, attributes: Object.freeze(attributesOf(topic, operation)) };
    topicSpans.set(key, found);
  }
  return found;
}

/**
 * Runs `fn` for one incoming message in a CONSUMER `process <topic>` span under its headers' context.
 * The message's partition and offset are added only to a span that is recorded: building them for
 * every message of a trace nobody records was a measurable part of a message's CPU.
 */
export function processSpan<T>(message: IncomingMessage, fn: () => Promise<T>): Promise<T> {
  const { name, attributes } = topicSpan(message.topic, 'process');
  return withSpan(
    name,
    attributes,
    (span) => {
      if (span.isRecording()) {
        span.setAttributes({
          'messaging.destination.partition.id': String(message.partition),
          'messaging.kafka.offset': Number(message.offset),
        });
      }
      return fn();
    },
    { kind: SpanKind.CONSUMER, parent: contextFromHeaders(message.headers) },
  );
}

/**
 * PRODUCER `send <topic>` spans for the messages of a produce request that carry a trace context,
 * each a child of its message's context, and the request with each such message's headers naming its
 * span. The caller ends the spans (endSendSpans) once the broker answered.
 */
export function withSendSpans(request: readonly TopicMessages[]): {
  readonly request: TopicMessages[];
  readonly spans: Span[];
} {
  const spans: Span[] = [];
  const traced = request.map(({ topic, messages }) => ({
    topic,
    messages: messages.map((message): OutgoingMessage => {
      const parent = contextFromHeaders(message.headers);
      if (!spanOf(parent)) return message;
      const { name, attributes } = topicSpan(topic, 'send');
      const span = startSpan(name, attributes, { kind: SpanKind.PRODUCER, parent });
      spans.push(span);
      const headers = { ...message.headers, ...traceHeaders(contextWithSpan(parent, span)) };
      return { key: message.key, value: message.value, headers };
    }),
  }));
  return { request: traced, spans };
}

export function endSendSpans(spans: readonly Span[], error?: unknown): void {
  for (const span of spans) {
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  }
}
