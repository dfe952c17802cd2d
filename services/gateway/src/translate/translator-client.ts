import { AppError, ERROR_CATALOGUE, type ErrorCode } from '@tp/runtime';
import type { Language } from '@tp/translation';

export interface TranslatorResult {
  readonly translatedText: string;
  readonly source: string;
  readonly target: string;
  readonly engine: string;
  readonly cached: boolean;
  readonly truncated: boolean;
  readonly detectedSource?: string;
}

export interface TranslateCall {
  readonly text: string;
  readonly source: string;
  readonly target: string;
}

/** HTTP client of the internal translator service; its error envelopes come back as the same AppError. */
export class TranslatorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly languagesTimeoutMs: number,
  ) {}

  async translate(call: TranslateCall, requestId: string, signal: AbortSignal): Promise<TranslatorResult> {
    let res: Response;
    try {
      res = await fetch(new URL('/translate', this.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify(call),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new AppError('TRANSLATOR_UNAVAILABLE', `the translator did not answer: ${reason(err)}`);
    }
    const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (res.ok && body && typeof body.translatedText === 'string') return body as unknown as TranslatorResult;
    throw translatorError(res.status, body);
  }

  /** The translator's language list, or undefined when it is down or slower than the short timeout. */
  async languages(): Promise<readonly Language[] | undefined> {
    try {
      const res = await fetch(new URL('/languages', this.baseUrl), {
        signal: AbortSignal.timeout(this.languagesTimeoutMs),
      });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { languages?: Language[] };
      return Array.isArray(body.languages) && body.languages.length > 0 ? body.languages : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Passes the translator's own error code through when it is one of ours; anything else is a 503. */
function translatorError(status: number, body: Record<string, unknown> | undefined): AppError {
  const code = body?.error;
  if (typeof code === 'string' && code in ERROR_CATALOGUE && code !== 'INTERNAL') {
    return new AppError(code as ErrorCode, String(body?.message ?? code), body?.details);
  }
  return new AppError('TRANSLATOR_UNAVAILABLE', `the translator failed (HTTP ${status})`);
}

function reason(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err.cause as { code?: string } | undefined)?.code;
    return err.name === 'TimeoutError' ? 'timed out' : (cause ?? err.message);
  }
  return String(err);
}
