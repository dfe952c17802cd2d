import { AppError, ERROR_CATALOGUE, type ErrorCode } from '@tp/runtime';
import { request, type Dispatcher } from 'undici';
import type { z } from 'zod';

export interface ServiceCall {
  readonly method?: 'GET' | 'POST' | 'PUT';
  readonly body?: unknown;
  readonly requestId?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/**
 * JSON over HTTP to one of our internal services. A 2xx answer is parsed with the call's answer
 * schema (@tp/service-contracts); one outside it is `unavailable`, naming the path and the first
 * problem. Their error envelopes come back as the same AppError (same code, message and details); no
 * answer, a timeout or a non-envelope failure become `unavailable` (a 503 code naming the service). undici's `request` rather than the global fetch: the
 * same keep-alive pool and trace propagation at about a third of the CPU per call (every translation
 * cache miss makes one: bench:apertium).
 */
export class ServiceClient {
  constructor(
    private readonly name: string,
    private readonly baseUrl: string,
    private readonly defaultTimeoutMs: number,
    private readonly unavailable: ErrorCode,
  ) {}

  async call<S extends z.ZodType>(
    path: string,
    answer: S,
    { method = 'GET', body, requestId, signal, timeoutMs }: ServiceCall = {},
  ): Promise<z.output<S>> {
    const timeout = AbortSignal.timeout(timeoutMs ?? this.defaultTimeoutMs);
    const either = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(new URL(path, this.baseUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        // undici's request follows no redirect (our services never send one), so unlike fetch it
        // does not copy each request body in case one comes.
        signal: either,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new AppError(this.unavailable, `the ${this.name} service did not answer: ${reason(err)}`);
    }
    const parsed = (await res.body.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (res.statusCode >= 200 && res.statusCode < 300 && parsed !== undefined) {
      return this.checked(path, answer, parsed);
    }
    throw this.failure(res.statusCode, parsed);
  }

  /** The answer as its schema reads it, or `unavailable`: the service broke its contract. */
  private checked<S extends z.ZodType>(path: string, answer: S, body: unknown): z.output<S> {
    const result = answer.safeParse(body);
    if (result.success) return result.data;
    const [issue] = result.error.issues;
    const where = issue?.path.join('.') || '(the answer)';
    throw new AppError(
      this.unavailable,
      `the ${this.name} service answered ${path.split('?')[0]} outside its contract: ${where}: ${issue?.message}`,
    );
  }

  /** Passes the service's own error code through when it is one of ours; anything else is `unavailable`. */
  private failure(status: number, body: Record<string, unknown> | undefined): AppError {
    const code = body?.error;
    if (typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code) && code !== 'INTERNAL') {
      return new AppError(code as ErrorCode, String(body?.message ?? code), body?.details);
    }
    return new AppError(this.unavailable, `the ${this.name} service failed (HTTP ${status})`);
  }
}

function reason(err: unknown): string {
  if (err instanceof Error) {
    // AbortSignal.timeout's reason is a DOMException named TimeoutError.
    if ((err.cause as Error | undefined)?.name === 'TimeoutError') return 'timed out';
    // undici's errors carry their code (ECONNREFUSED, UND_ERR_SOCKET); fetch's carried it in `cause`.
    const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
    return err.name === 'TimeoutError' ? 'timed out' : typeof code === 'string' ? code : err.message;
  }
  return String(err);
}
