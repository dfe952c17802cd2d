import { createRequire } from 'node:module';

import { describe, expect, it } from '@jest/globals';

import { fixRequestQueueIdleLoop, pendingCheckDelay } from './request-queue.js';

interface Queue {
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}

/** kafkajs's own per-connection queue, as its connections make it. */
function requestQueue(): Queue {
  const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (
    options: object,
  ) => Queue;
  const quiet = () => undefined;
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
}

describe('kafkajs request queue without its idle timer loop', () => {
  it('checks again in 10 ms while requests wait, at the end of a throttle, else never', () => {
    const now = 1_000_000;
    expect(pendingCheckDelay(2, -1, now)).toBe(10);
    expect(pendingCheckDelay(2, now + 250, now)).toBe(250);
    expect(pendingCheckDelay(0, now + 250, now)).toBe(250);
    expect(pendingCheckDelay(0, -1, now)).toBeUndefined();
    expect(pendingCheckDelay(0, now, now)).toBeUndefined();
  });

  it('arms no timer after a check with nothing pending and no throttle (kafkajs arms a 1 ms one)', () => {
    fixRequestQueueIdleLoop();
    fixRequestQueueIdleLoop();
    const queue = requestQueue();
    // What every answered request ends in (fulfillRequest).
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('still arms the check for the end of a throttle the broker asked for', () => {
    fixRequestQueueIdleLoop();
    const queue = requestQueue();
    queue.maybeThrottle(60_000);
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    queue.destroy();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });
});
