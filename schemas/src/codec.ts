import { context, propagation } from '@opentelemetry/api';
import { AVRO_CONTENT_TYPE, HEADERS, type IntegrationEvent } from '@tp/contracts';
import type avsc from 'avsc';

import { SchemaError } from './errors.js';
import { SchemaRegistry, type SchemaVersion } from './registry.js';

/** Kafka headers as the codec reads them: kafkajs hands header values over as Buffers or strings. */
export type RawHeaders = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

export interface EncodedEvent {
  readonly value: Buffer;
  readonly headers: Record<string, string>;
}

/**
 * Avro codec for integration events. Encodes with the latest schema of the event's type and names that
 * writer schema by fingerprint in a header; decodes any known writer version into the latest reader
 * version through an avsc resolver (cached per writer).
 */
export class EventCodec {
  private readonly resolvers = new Map<string, avsc.Resolver | null>();

  constructor(readonly registry: SchemaRegistry = SchemaRegistry.load()) {}

  encode(event: IntegrationEvent): EncodedEvent {
    const writer = this.registry.latest(event.eventType);
    const record = { ...event, eventVersion: writer.version };
    let value: Buffer;
    try {
      value = writer.type.toBuffer(record);
    } catch {
      throw new SchemaError('EVENT_INVALID', `${event.eventType}: ${invalidPaths(writer.type, record)}`);
    }
    const headers: Record<string, string> = {
      [HEADERS.contentType]: AVRO_CONTENT_TYPE,
      [HEADERS.schemaFingerprint]: writer.fingerprint,
      [HEADERS.eventType]: event.eventType,
      [HEADERS.eventVersion]: String(writer.version),
      [HEADERS.eventId]: event.eventId,
      [HEADERS.correlationId]: event.correlationId,
    };
    if (event.causationId) headers[HEADERS.causationId] = event.causationId;
    // W3C trace context (`traceparent`, `tracestate`) of the work that made the event, when a span is
    // active: producers send it on as their `send` span's, so consumers join the same trace.
    propagation.inject(context.active(), headers);
    return { value, headers };
  }

  decode(value: Buffer | null, headers: RawHeaders): IntegrationEvent {
    const fingerprint = headerString(headers, HEADERS.schemaFingerprint);
    if (!fingerprint) {
      throw new SchemaError('SCHEMA_HEADER_MISSING', `message has no ${HEADERS.schemaFingerprint} header`);
    }
    const writer = this.registry.find(fingerprint);
    if (!writer) {
      throw new SchemaError('SCHEMA_UNKNOWN_FINGERPRINT', `no known schema has fingerprint ${fingerprint}`);
    }
    if (!value) throw new SchemaError('MESSAGE_UNDECODABLE', 'message has no value');
    const reader = this.registry.latest(writer.eventType);
    try {
      return reader.type.fromBuffer(value, this.resolverFor(reader, writer) ?? undefined) as IntegrationEvent;
    } catch (err) {
      throw new SchemaError(
        'MESSAGE_UNDECODABLE',
        `${writer.eventType} v${writer.version}: ${(err as Error).message}`,
      );
    }
  }

  private resolverFor(reader: SchemaVersion, writer: SchemaVersion): avsc.Resolver | null {
    if (reader === writer) return null;
    let resolver = this.resolvers.get(writer.fingerprint);
    if (resolver === undefined) {
      resolver = reader.type.createResolver(writer.type);
      this.resolvers.set(writer.fingerprint, resolver);
    }
    return resolver;
  }
}

export function headerString(headers: RawHeaders, name: string): string | undefined {
  const raw = headers[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  if (first === undefined) return undefined;
  return typeof first === 'string' ? first : first.toString('utf8');
}

function invalidPaths(type: avsc.Type, value: unknown): string {
  const paths: string[] = [];
  type.isValid(value, {
    errorHook: (path, val) =>
      paths.push(`${path.join('.') || '(root)'}: invalid value ${JSON.stringify(val)}`),
  });
  return paths.join('; ') || 'value does not match the schema';
}
