import { HOT_CACHE_MISSED, type Language } from '@tp/translation';

import { ServiceClient } from '../http/service-client.js';

export interface TranslatorResult {
  readonly translatedText: string;
  readonly source: string;
  readonly target: string;
  readonly engine: string;
  readonly cached: boolean;
  readonly truncated: boolean;
  readonly detectedSource?: string;
  readonly route?: { source: string; target: string; engine: string }[];
  readonly unknownWords?: number;
}

/** One pair of the translator's GET /pairs. */
export interface ServedPair {
  readonly source: string;
  readonly target: string;
  readonly engines: string[];
  readonly via?: string;
  readonly route?: { source: string; target: string; engines: string[] }[];
}

export interface TranslateCall {
  readonly text: string;
  readonly source: string;
  readonly target: string;
}

const MISSED = { [HOT_CACHE_MISSED.name]: HOT_CACHE_MISSED.value };

/** HTTP client of the internal translator service (POST /translate, GET /languages, admin calls). */
export class TranslatorClient {
  private readonly client: ServiceClient;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    private readonly languagesTimeoutMs: number,
  ) {
    this.client = new ServiceClient('translator', baseUrl, timeoutMs, 'TRANSLATOR_UNAVAILABLE');
  }

  /** POST /translate for a call whose hot-cache entry this process has just read and not found. */
  translateMissed(call: TranslateCall, requestId: string, signal: AbortSignal): Promise<TranslatorResult> {
    return this.client.call<TranslatorResult>('/translate', {
      method: 'POST',
      body: call,
      requestId,
      signal,
      headers: MISSED,
    });
  }

  /** POST /translate/test: the chain alone (no hot cache, nothing stored), with every timed attempt. */
  testChain<T>(call: TranslateCall, requestId: string, signal: AbortSignal): Promise<T> {
    return this.client.call<T>('/translate/test', { method: 'POST', body: call, requestId, signal });
  }

  /** GET /engines: each slot's engine and breaker state, and the installed offline models. */
  engines<T>(requestId: string, signal: AbortSignal, timeoutMs: number): Promise<T> {
    return this.client.call<T>('/engines', { requestId, signal, timeoutMs });
  }

  /** GET /pairs: the pairs translatable now, optionally for one source and/or target. */
  async pairs(
    filter: { source?: string; target?: string },
    requestId: string,
    signal: AbortSignal,
  ): Promise<readonly ServedPair[]> {
    const query = new URLSearchParams(filter).toString();
    const body = await this.client.call<{ pairs: ServedPair[] }>(`/pairs${query ? `?${query}` : ''}`, {
      requestId,
      signal,
      timeoutMs: this.languagesTimeoutMs * 4,
    });
    return body.pairs;
  }

  /** The translator's language list, or undefined when it is down or slower than the short timeout. */
  async languages(): Promise<readonly Language[] | undefined> {
    try {
      const body = await this.client.call<{ languages?: Language[] }>('/languages', {
        timeoutMs: this.languagesTimeoutMs,
      });
      return Array.isArray(body.languages) && body.languages.length > 0 ? body.languages : undefined;
    } catch {
      return undefined;
    }
  }
}
