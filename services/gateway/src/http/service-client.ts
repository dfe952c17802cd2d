import { AppError, ERROR_CATALOGUE, type ErrorCode } from '@tp/runtime';

export interface ServiceCall {
  readonly method?: 'GET' | 'POST' | 'PUT';
  readonly body?: unknown;
  readonly requestId?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/**
 * JSON over HTTP to one of our internal services. Their error envelopes come back as the same
 * AppError (same code, message and details); no answer, a timeout or a non-envelope failure become
 * `unavailable` (a 503 code naming the service).
 */
export class ServiceClient {
  constructor(
    private readonly name: string,
    private readonly baseUrl: string,
    private readonly defaultTimeoutMs: number,
    private readonly unavailable: ErrorCode,
  ) {}

  async call<T>(
    path: string,
    { method = 'GET', body, requestId, signal, timeoutMs }: ServiceCall = {},
  ): Promise<T> {
    // One controller with a cleared timer, not AbortSignal.timeout/any: those leave a timer that
    // fires (and allocates) after every call, which showed in bench:nli.
    const controller = new AbortController();
    const ms = timeoutMs ?? this.defaultTimeoutMs;
    const timer = setTimeout(() => controller.abort(new TimeoutError(ms)), ms);
    const onCallerAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      let res: Response;
      try {
        res = await fetch(new URL(path, this.baseUrl), {
          method,
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(requestId ? { 'x-request-id': requestId } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
          // Our services never redirect. With 'follow' (the default) undici copies every request
          // (its body stream teed) in case one comes: a third of each call's cost in bench:nli.
          redirect: 'error',
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        throw new AppError(this.unavailable, `the ${this.name} service did not answer: ${reason(err)}`);
      }
      const parsed = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      if (res.ok && parsed !== undefined) return parsed as T;
      throw this.failure(res.status, parsed);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Passes the service's own error code through when it is one of ours; anything else is `unavailable`. */
  private failure(status: number, body: Record<string, unknown> | undefined): AppError {
    const code = body?.error;
    if (typeof code === 'string' && code in ERROR_CATALOGUE && code !== 'INTERNAL') {
      return new AppError(code as ErrorCode, String(body?.message ?? code), body?.details);
    }
    return new AppError(this.unavailable, `the ${this.name} service failed (HTTP ${status})`);
  }
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function reason(err: unknown): string {
  if (err instanceof TimeoutError) return 'timed out';
  if (err instanceof Error) {
    if (err.cause instanceof TimeoutError) return 'timed out';
    const cause = (err.cause as { code?: string } | undefined)?.code;
    return err.name === 'TimeoutError' ? 'timed out' : (cause ?? err.message);
  }
  return String(err);
}
