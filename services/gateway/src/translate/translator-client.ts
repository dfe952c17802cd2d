import {
  chainTestResult,
  enginesAnswer,
  languageDetectAnswer,
  languagesAnswer,
  pairsAnswer,
  translateBatchAnswer,
  translationResult,
  type pairsQuery,
  type translateBatchRequest,
  type translateRequest,
} from '@tp/service-contracts';
import type { z } from 'zod';

import { ServiceClient } from '../http/service-client.js';

/** What the gateway asks the translator to translate (the translator checks it: @tp/service-contracts). */
export type TranslateCall = z.input<typeof translateRequest>;

/** Texts of one pair the gateway asks the translator to translate, each on its own. */
export type TranslateBatchCall = z.input<typeof translateBatchRequest>;

/** HTTP client of the internal translator service; each answer is checked against its contract. */
export class TranslatorClient {
  private readonly client: ServiceClient;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    private readonly languagesTimeoutMs: number,
  ) {
    this.client = new ServiceClient('translator', baseUrl, timeoutMs, 'TRANSLATOR_UNAVAILABLE');
  }

  /** POST /translate: the hot cache, then the engine chain. */
  translate(call: TranslateCall, requestId: string, signal: AbortSignal) {
    return this.client.call('/translate', translationResult, {
      method: 'POST',
      body: call,
      requestId,
      signal,
    });
  }

  /** POST /translate/batch: per text, the hot cache, then the engine chain; each its own result or error. */
  translateBatch(call: TranslateBatchCall, requestId: string, signal: AbortSignal) {
    return this.client.call('/translate/batch', translateBatchAnswer, {
      method: 'POST',
      body: call,
      requestId,
      signal,
    });
  }

  /** POST /detect: the language of each text, by the detector of `source: auto`. */
  detect(texts: readonly string[], requestId: string, signal: AbortSignal) {
    return this.client.call('/detect', languageDetectAnswer, {
      method: 'POST',
      body: { texts },
      requestId,
      signal,
    });
  }

  /** POST /translate/test: the chain alone (no hot cache, nothing stored), with every timed attempt. */
  testChain(call: TranslateCall, requestId: string, signal: AbortSignal) {
    return this.client.call('/translate/test', chainTestResult, {
      method: 'POST',
      body: call,
      requestId,
      signal,
    });
  }

  /** GET /engines: each slot's engine and breaker state, and the installed offline models. */
  engines(requestId: string, signal: AbortSignal, timeoutMs: number) {
    return this.client.call('/engines', enginesAnswer, { requestId, signal, timeoutMs });
  }

  /** GET /pairs: the pairs translatable now, optionally for one source and/or target. */
  async pairs(filter: z.input<typeof pairsQuery>, requestId: string, signal: AbortSignal) {
    const query = new URLSearchParams(filter).toString();
    const body = await this.client.call(`/pairs${query ? `?${query}` : ''}`, pairsAnswer, {
      requestId,
      signal,
      timeoutMs: this.languagesTimeoutMs * 4,
    });
    return body.pairs;
  }

  /** The translator's language list, or undefined when it is down or slower than the short timeout. */
  async languages() {
    try {
      const body = await this.client.call('/languages', languagesAnswer, {
        timeoutMs: this.languagesTimeoutMs,
      });
      return body.languages.length > 0 ? body.languages : undefined;
    } catch {
      return undefined;
    }
  }
}
