/** Kafka header names every message carries (values are UTF-8 strings). */
export const HEADERS = {
  schemaFingerprint: 'tp-schema-fingerprint',
  eventType: 'tp-event-type',
  eventVersion: 'tp-event-version',
  eventId: 'tp-event-id',
  correlationId: 'tp-correlation-id',
  causationId: 'tp-causation-id',
  contentType: 'content-type',
} as const;

/** Content type of every message value: Avro binary, writer schema named by its SHA-256 fingerprint. */
export const AVRO_CONTENT_TYPE = 'application/avro';
