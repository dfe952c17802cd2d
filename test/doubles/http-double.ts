/**
 * A tiny HTTP server for third-party test doubles: listens on an ephemeral port, records every request
 * (method, path, query, headers, parsed body) and lets a test inject faults into the next responses.
 */
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Query parameters; a repeated name keeps its last value. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly bodyBytes: number;
  /** JSON or form body parsed (a repeated form field becomes an array); undefined when empty or unreadable. */
  readonly body: unknown;
}

export interface DoubleResponse {
  readonly status: number;
  /** A string is sent as is; anything else as JSON; undefined sends an empty body. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What an injected fault does to one request. */
export type Fault =
  /** Answer with this instead of the double's normal answer; `body` may be computed from the request. */
  | {
      readonly type: 'respond';
      readonly status: number;
      readonly body?: unknown | ((request: RecordedRequest) => unknown);
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Wait, then give the normal answer. */
  | { readonly type: 'delay'; readonly ms: number }
  /** Never answer (the connection stays open until the client gives up or the double closes). */
  | { readonly type: 'hang' }
  /** Destroy the socket without answering. */
  | { readonly type: 'destroy' };

export interface FaultOptions {
  /** How many of the next matching requests the fault hits (default 1). */
  readonly times?: number;
  /** Only requests to this path (default: any path). */
  readonly path?: string;
  /** Only requests with this method, e.g. `POST` (default: any method). */
  readonly method?: string;
}

export type DoubleHandler = (request: RecordedRequest) => DoubleResponse | Promise<DoubleResponse>;

export interface HttpDouble {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Injects a fault into the next `times` requests (to `path`, when given). Faults queue in order. */
  fail(fault: Fault, options?: FaultOptions): void;
  /** Forgets recorded requests and pending faults. */
  reset(): void;
  close(): Promise<void>;
}

interface PendingFault<F> {
  readonly fault: F;
  readonly path: string | undefined;
  readonly method: string | undefined;
  remaining: number;
}

/** Faults waiting for requests, in the order they were injected. */
export class FaultQueue<F> {
  private pending: PendingFault<F>[] = [];

  add(fault: F, options: FaultOptions = {}): void {
    const { path, method, times = 1 } = options;
    this.pending.push({ fault, path, method, remaining: times });
  }

  /**
   * The first queued fault for `path` that `applies` accepts, with `use` to count one hit of it
   * (a fault leaves the queue once it hit `times` requests).
   */
  find(
    path: string,
    applies: (fault: F) => boolean = () => true,
    method?: string,
  ): { fault: F; use(): void } | undefined {
    const pending = this.pending.find(
      (f) =>
        (f.path === undefined || f.path === path) &&
        (f.method === undefined || f.method === method) &&
        applies(f.fault),
    );
    if (!pending) return undefined;
    return {
      fault: pending.fault,
      use: () => {
        pending.remaining -= 1;
        if (pending.remaining <= 0) this.pending = this.pending.filter((f) => f !== pending);
      },
    };
  }

  clear(): void {
    this.pending = [];
  }
}

/** Listens on an ephemeral port of 127.0.0.1 and returns it. */
export async function listenOnFreePort(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

export async function startHttpDouble(handler: DoubleHandler): Promise<HttpDouble> {
  const requests: RecordedRequest[] = [];
  const faults = new FaultQueue<Fault>();

  const takeFault = (path: string, method: string): Fault | undefined => {
    const found = faults.find(path, undefined, method);
    found?.use();
    return found?.fault;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const recorded = await record(req);
      requests.push(recorded);
      const fault = takeFault(recorded.path, recorded.method);
      if (fault?.type === 'hang') return;
      if (fault?.type === 'destroy') {
        req.socket.destroy();
        return;
      }
      if (fault?.type === 'delay') await sleep(fault.ms);
      const answer =
        fault?.type === 'respond'
          ? {
              status: fault.status,
              body: typeof fault.body === 'function' ? fault.body(recorded) : fault.body,
              headers: fault.headers,
            }
          : await handler(recorded);
      if (!res.destroyed) reply(res, answer);
    })().catch((err: unknown) => {
      console.error('http double failed', err);
      if (!res.headersSent) reply(res, { status: 500, body: { error: 'double failed' } });
    });
  });
  const port = await listenOnFreePort(server);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail(fault, options = {}) {
      faults.add(fault, options);
    },
    reset() {
      requests.length = 0;
      faults.clear();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function record(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const rawBody = raw.toString('utf8');
  const url = new URL(req.url ?? '/', 'http://double');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    rawBody,
    bodyBytes: raw.length,
    body: parseBody(req.headers['content-type'], rawBody),
  };
}

function parseBody(contentType: string | undefined, raw: string): unknown {
  if (raw === '') return undefined;
  if (contentType?.includes('application/x-www-form-urlencoded')) {
    const form: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(raw)) {
      const seen = form[key];
      form[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    return form;
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, answer: DoubleResponse): void {
  const isText = typeof answer.body === 'string';
  const payload = answer.body === undefined ? '' : isText ? String(answer.body) : JSON.stringify(answer.body);
  const headers: Record<string, string> = {
    ...(answer.body === undefined
      ? {}
      : { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' }),
    ...answer.headers,
  };
  res.writeHead(answer.status, headers);
  res.end(payload);
}

/**
 * A fault that answers `status` with `body` instead of the double's normal answer, with a Retry-After
 * header when `retryAfterSeconds` is given: the shape of every provider's canned faults.
 */
export function respondWith(
  status: number,
  body?: Extract<Fault, { type: 'respond' }>['body'],
  retryAfterSeconds?: number,
): Fault {
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
  return { type: 'respond', status, body, headers };
}

/** A provider's usage quota: an amount used so far against a limit, which a test can also use up at once. */
export interface Quota {
  /** Counts `amount` and returns true, or returns false without counting it when it would pass `limit`. */
  spend(amount: number, limit: number): boolean;
  used(): number;
  isExhausted(): boolean;
  /** Every `spend` fails until `restore`. */
  exhaust(): void;
  /** Nothing used and not exhausted. */
  restore(): void;
}

/** A fresh quota; its functions do not use `this`, so a double can hand them out as its own methods. */
export function createQuota(): Quota {
  let used = 0;
  let exhausted = false;
  return {
    spend: (amount, limit) => {
      if (exhausted || used + amount > limit) return false;
      used += amount;
      return true;
    },
    used: () => used,
    isExhausted: () => exhausted,
    exhaust: () => {
      exhausted = true;
    },
    restore: () => {
      exhausted = false;
      used = 0;
    },
  };
}

/** A property of a parsed request body, or undefined. */
export function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** A URL on which nothing listens (a port just released), for connection-refused tests. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}`;
}

/**
 * A recording pass-through in front of a real server (the tests' APy): every request is recorded,
 * faults can be injected as on a double, and anything else is forwarded as it came.
 */
export function startRecordingProxy(targetUrl: string): Promise<HttpDouble> {
  return startHttpDouble(async (request) => {
    const query = new URLSearchParams(request.query).toString();
    const contentType = request.headers['content-type'];
    const response = await fetch(`${targetUrl}${request.path}${query ? `?${query}` : ''}`, {
      method: request.method,
      ...(contentType ? { headers: { 'content-type': contentType } } : {}),
      ...(request.method === 'GET' ? {} : { body: request.rawBody }),
    });
    return {
      status: response.status,
      body: await response.text(),
      headers: { 'content-type': response.headers.get('content-type') ?? 'text/plain' },
    };
  });
}
