/**
 * HTTP plumbing shared by the engine adapters: one call that sends a request and reads the whole body,
 * turning network failures into transient EngineErrors while letting an abort through untouched, and the
 * default status classification (429 and 5xx transient, other non-2xx rejected).
 */
import { request } from 'undici';

import { EngineError, parseRetryAfter, type EngineName } from './engine.js';

/** What an engine sends: a method, headers and a body already in its wire form. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface HttpReply {
  readonly status: number;
  /** The answer's headers (names lower-case). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly json: unknown;
}

/** Connection-level error codes (Node sockets and undici) that mean "the far side was not reachable". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Sends one request and reads the body. undici's `request` rather than the global fetch: the same
 * connection pool (keep-alive) and the same trace propagation (the undici instrumentation sees both),
 * at about a third of the CPU per call (bench:apertium). When `signal` aborts, its reason is rethrown
 * unchanged so the chain can tell its own timeout from an engine failure.
 */
export async function send(
  engine: EngineName,
  url: string,
  init: HttpRequest,
  signal: AbortSignal,
): Promise<HttpReply> {
  try {
    const response = await request(url, { ...init, signal });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, json: parseJson(text) };
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const code = networkCode(err);
    if (code !== undefined) {
      throw new EngineError(engine, 'transient', `network error (${code})`, undefined, { cause: err });
    }
    throw err;
  }
}

/** `send` of `body` as JSON by POST, with `headers` beside the content type. */
export function postJson(
  engine: EngineName,
  url: string,
  body: unknown,
  signal: AbortSignal,
  headers: Readonly<Record<string, string>> = {},
): Promise<HttpReply> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  } as const;
  return send(engine, url, init, signal);
}

/** The failure for a non-2xx status: 429 and 5xx are transient (with Retry-After), the rest rejected. */
export function statusFailure(engine: EngineName, reply: HttpReply, detail?: string): EngineError {
  return failureForStatus(engine, reply.status, detail, headerOf(reply, 'retry-after'));
}

/** Same classification for a status that arrived some other way (MyMemory's in-band responseStatus). */
export function failureForStatus(
  engine: EngineName,
  status: number,
  detail?: string,
  retryAfter?: string | null,
): EngineError {
  const message = detail ? `HTTP ${status}: ${detail}` : `HTTP ${status}`;
  if (status === 429 || status >= 500) {
    return new EngineError(engine, 'transient', message, parseRetryAfter(retryAfter));
  }
  return new EngineError(engine, 'rejected', message);
}

/** `{base}{path}` without doubled slashes; the base may carry a path prefix (a proxy mount). */
export function endpoint(baseUrl: string, path: string): string {
  // not user text: a configured engine URL
  const base = new URL(baseUrl).href.replace(/\/+$/, '');
  return `${base}${path}`;
}

/** One header of a reply (the first, when it came more than once), or null. */
export function headerOf(reply: HttpReply, name: string): string | null {
  const value = reply.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string property of a JSON object, or undefined. */
export function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The network error code behind a failed call (undici's errors carry it, or their `cause` does; a
 * fetch failure is a TypeError with a `cause`). Checks by shape and name, not instanceof: errors from
 * another realm (a jest VM context) fail instanceof.
 */
function networkCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = cause;
  }
  // fetch reports every transport failure as a TypeError ("fetch failed", "terminated").
  return (err as { name?: unknown } | null)?.name === 'TypeError' ? 'fetch failed' : undefined;
}
