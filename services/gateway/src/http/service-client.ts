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
    const timeout = AbortSignal.timeout(timeoutMs ?? this.defaultTimeoutMs);
    let res: Response;
    try {
      res = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new AppError(this.unavailable, `the ${this.name} service did not answer: ${reason(err)}`);
    }
    const parsed = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (res.ok && parsed !== undefined) return parsed as T;
    throw this.failure(res.status, parsed);
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

function reason(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err.cause as { code?: string } | undefined)?.code;
    return err.name === 'TimeoutError' ? 'timed out' : (cause ?? err.message);
  }
  return String(err);
}
