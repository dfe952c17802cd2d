import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from '@tp/kafka';

import { attemptOf, notBeforeOf, RETRY_HEADERS } from './retry-headers.js';
import { retryMessage } from './retry-message.js';

const incoming = (headers: IncomingMessage['headers']): IncomingMessage => ({
  topic: 'translation.requested.v1',
  partition: 2,
  offset: '41',
  key: Buffer.from('vendor:v-1:name:de'),
  value: Buffer.from([0, 1, 2, 3]),
  headers,
  timestamp: '0',
});

describe('retry message', () => {
  it('keeps the request bytes and headers, and says which attempt is next and when it is due', () => {
    const message = incoming({
      'tp-schema-fingerprint': Buffer.from('abc'),
      'tp-event-id': 'e-1',
      [RETRY_HEADERS.attempt]: Buffer.from('2'),
    });
    const retry = retryMessage(message, 'vendor:v-1:name:de', 3, 1_700_000_000_000);
    expect(retry).toEqual({
      key: 'vendor:v-1:name:de',
      value: Buffer.from([0, 1, 2, 3]),
      headers: {
        'tp-schema-fingerprint': 'abc',
        'tp-event-id': 'e-1',
        [RETRY_HEADERS.attempt]: '3',
        [RETRY_HEADERS.notBefore]: '1700000000000',
      },
    });
  });

  it('reads a fresh request as attempt 1, due now', () => {
    expect(attemptOf({})).toBe(1);
    expect(notBeforeOf({})).toBe(0);
    expect(attemptOf({ [RETRY_HEADERS.attempt]: 'x' })).toBe(1);
    expect(attemptOf({ [RETRY_HEADERS.attempt]: Buffer.from('4') })).toBe(4);
    expect(notBeforeOf({ [RETRY_HEADERS.notBefore]: Buffer.from('1700000000000') })).toBe(1_700_000_000_000);
  });
});
