import { describe, expect, it } from '@jest/globals';
import { CompressionTypes } from 'kafkajs';

import { compressionPolicy, parseCompression } from './compression.js';
import { MessageTooLargeError, recordBytes, splitIntoRequests } from './message-size.js';
import type { OutgoingMessage } from './port.js';

const message = (key: string, bytes: number): OutgoingMessage => ({
  key,
  value: Buffer.alloc(bytes, 'x'),
  headers: { 'tp-event-id': '0'.repeat(36) },
});

describe('recordBytes', () => {
  it('counts key, value and headers in UTF-8 bytes, never less than they take', () => {
    const ascii = recordBytes({ key: 'k', value: Buffer.from('abc'), headers: { h: 'v' } });
    const cjk = recordBytes({ key: '鍵', value: Buffer.from('abc'), headers: { h: '値' } });
    expect(ascii).toBeGreaterThanOrEqual(1 + 3 + 1 + 1);
    expect(cjk - ascii).toBe(4); // two characters of 3 bytes instead of 1
  });
});

describe('splitIntoRequests', () => {
  it('keeps each topic within its budget per request and its messages in order', () => {
    const a = Array.from({ length: 10 }, (_, i) => message(`a${i}`, 300));
    const b = Array.from({ length: 3 }, (_, i) => message(`b${i}`, 300));
    const budget = recordBytes(a[0]!) * 4;
    const requests = splitIntoRequests(
      [
        { topic: 'A', messages: a },
        { topic: 'B', messages: b },
      ],
      () => budget,
    );
    expect(requests.map((r) => r.map((t) => `${t.topic}${t.messages.length}`))).toEqual([
      ['A4', 'B3'],
      ['A4'],
      ['A2'],
    ]);
    expect(requests.flatMap((r) => r.filter((t) => t.topic === 'A').flatMap((t) => t.messages))).toEqual(a);
  });

  it('sends topics of different codecs in different requests', () => {
    const requests = splitIntoRequests(
      [
        { topic: 'plain', messages: [message('p', 10)] },
        { topic: 'zipped', messages: [message('z', 10)] },
      ],
      () => 10_000,
      (topic) => (topic === 'zipped' ? CompressionTypes.GZIP : CompressionTypes.None),
    );
    expect(requests.map((r) => r.map((t) => t.topic))).toEqual([['plain'], ['zipped']]);
  });

  it('refuses a message larger than its topic takes, with the sizes', () => {
    expect(() => splitIntoRequests([{ topic: 'A', messages: [message('k', 2000)] }], () => 1000)).toThrow(
      MessageTooLargeError,
    );
  });
});

describe('KAFKA_COMPRESSION', () => {
  it('takes a codec for every topic and per topic, named without the prefix', () => {
    expect(parseCompression('gzip')).toEqual({ default: 'gzip', topics: {} });
    const policy = compressionPolicy('none, translation.completed.v1=gzip', 'test.');
    expect(policy('test.translation.completed.v1')).toBe(CompressionTypes.GZIP);
    expect(policy('test.content.changed.v1')).toBe(CompressionTypes.None);
  });

  it('refuses an unknown codec or a missing topic name', () => {
    expect(() => parseCompression('zstd')).toThrow('codec must be one of none, gzip');
    expect(() => parseCompression('=gzip')).toThrow('topic name missing');
  });
});
