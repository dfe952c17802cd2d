import { headerString, type RawHeaders } from '@tp/schemas';

/**
 * Headers the engine consumer adds when it puts a request on the retry topic (values are UTF-8
 * strings, like every header). They belong to this consumer's own retry loop, not to the contract.
 */
export const RETRY_HEADERS = {
  /** Number of the attempt the message is due for: 2 for the first retry. */
  attempt: 'tp-attempt',
  /** Epoch ms before which the retry consumer does not handle the message. */
  notBefore: 'tp-not-before',
} as const;

/** The attempt a message is due for: 1 without the header (a request fresh from the main topic). */
export function attemptOf(headers: RawHeaders): number {
  const value = Number(headerString(headers, RETRY_HEADERS.attempt));
  return Number.isSafeInteger(value) && value >= 1 ? value : 1;
}

/** When the message is due (epoch ms); 0 (due now) without a readable header. */
export function notBeforeOf(headers: RawHeaders): number {
  const value = Number(headerString(headers, RETRY_HEADERS.notBefore));
  return Number.isFinite(value) && value > 0 ? value : 0;
}
