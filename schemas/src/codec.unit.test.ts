import { describe, expect, it } from '@jest/globals';
import { HEADERS, type TranslationCompleted } from '@tp/contracts';

import { EventCodec } from './codec.js';
import { SchemaError } from './errors.js';
import { newEvent } from './new-event.js';

const codec = new EventCodec();

const completed = () =>
  newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'zh-CN',
      targetLang: 'en',
      translatedText: 'hello world',
      sourceHash: 'a'.repeat(64),
      sourceVersion: 7,
      engine: 'offline',
      truncated: true,
      detectedSourceLang: null,
      requestedAt: 1_700_000_000_000,
      fallback: true,
      moreResults: [],
      failures: [],
    },
    { correlationId: 'corr-1', causationId: 'cause-1' },
  );

describe('EventCodec', () => {
  it('round-trips an event and names its writer schema, id and correlation in headers', () => {
    const event = completed();
    const { value, headers } = codec.encode(event);
    expect(headers[HEADERS.schemaFingerprint]).toBe(
      codec.registry.latest('TranslationCompleted').fingerprint,
    );
    expect(headers[HEADERS.eventId]).toBe(event.eventId);
    expect(headers[HEADERS.correlationId]).toBe('corr-1');
    expect(headers[HEADERS.causationId]).toBe('cause-1');
    const decoded = codec.decode(value, headers) as TranslationCompleted;
    expect(decoded).toEqual({
      ...event,
      eventVersion: codec.registry.latest('TranslationCompleted').version,
    });
  });

  it('accepts header values as Buffers, as kafkajs delivers them', () => {
    const { value, headers } = codec.encode(completed());
    const asBuffers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)]));
    expect(codec.decode(value, asBuffers).eventType).toBe('TranslationCompleted');
  });

  it('reads a v1 message with the latest reader, filling the new fields with their defaults', () => {
    const v1 = codec.registry.versions('TranslationCompleted')[0]!;
    const {
      truncated: _t,
      detectedSourceLang: _d,
      requestedAt: _r,
      fallback: _f,
      ...v1Data
    } = completed().data;
    const record = { ...completed(), eventVersion: 1, data: v1Data };
    const decoded = codec.decode(v1.type.toBuffer(record), { [HEADERS.schemaFingerprint]: v1.fingerprint });
    expect(decoded).toEqual({
      ...record,
      data: { ...v1Data, truncated: false, detectedSourceLang: null, requestedAt: 0, fallback: false },
    });
  });

  it('reads a v3 message (before the fallback flag) as not fallback', () => {
    const v3 = codec.registry.versions('TranslationCompleted')[2]!;
    const { fallback: _f, ...v3Data } = completed().data;
    const record = { ...completed(), eventVersion: 3, data: v3Data };
    const decoded = codec.decode(v3.type.toBuffer(record), { [HEADERS.schemaFingerprint]: v3.fingerprint });
    expect(decoded).toEqual({ ...record, data: { ...v3Data, fallback: false } });
  });

  it('rejects a message without the schema header', () => {
    const { value } = codec.encode(completed());
    expect(() => codec.decode(value, {})).toThrow(expect.objectContaining({ code: 'SCHEMA_HEADER_MISSING' }));
  });

  it('rejects a message whose writer schema is unknown', () => {
    const { value } = codec.encode(completed());
    expect(() => codec.decode(value, { [HEADERS.schemaFingerprint]: 'ff'.repeat(32) })).toThrow(SchemaError);
  });

  it('rejects bytes that do not decode with the named schema', () => {
    const { headers } = codec.encode(completed());
    expect(() => codec.decode(Buffer.from([1, 2, 3]), headers)).toThrow(
      expect.objectContaining({ code: 'MESSAGE_UNDECODABLE' }),
    );
  });

  it('refuses to encode an event that does not match its schema, naming the field', () => {
    const event = { ...completed(), data: { ...completed().data, sourceVersion: 'seven' } };
    expect(() => codec.encode(event as unknown as TranslationCompleted)).toThrow(/data\.sourceVersion/);
  });
});
