import type { IncomingMessage, OutgoingMessage } from '@tp/kafka';
import { traceHeaders } from '@tp/runtime';
import { headerString } from '@tp/schemas';

import { RETRY_HEADERS } from './retry-headers.js';

/**
 * The request again, for the retry topic: value and key unchanged (the bytes are the request's),
 * every header kept, plus the next attempt's number and due time. The trace context is the attempt's
 * that failed (the active span), so the retry continues the request's trace under it.
 */
export function retryMessage(
  message: IncomingMessage,
  key: string,
  nextAttempt: number,
  notBefore: number,
): OutgoingMessage {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(message.headers)) {
    const value = headerString(message.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  headers[RETRY_HEADERS.attempt] = String(nextAttempt);
  headers[RETRY_HEADERS.notBefore] = String(notBefore);
  Object.assign(headers, traceHeaders());
  return { key, value: message.value ?? Buffer.alloc(0), headers };
}
