import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestHandler } from 'express';

import type { AppError } from '../errors.js';

// The parts every fast lane (see `FastLane` in server.ts) uses: which requests it may take, how it
// reads their body as Express would, and how it hands an error to Express to be answered there.

declare module 'node:http' {
  interface IncomingMessage {
    /** An error found by a fast lane; Express answers it as if its own middleware had raised it. */
    laneError?: AppError;
  }
}

/**
 * Middleware, before the routes: a request a fast lane handed over with an error goes straight to the
 * error handler, so errors are written in one place whichever path found them.
 */
export const laneErrors: RequestHandler = (req, _res, next) => next(req.laneError);

/**
 * Whether a fast lane may take a request for `path`: a POST there (a browser's too), UTF-8 JSON of a
 * known size within the body limit, not compressed or chunked. Anything else is left to Express.
 */
export function plainJsonPost(req: IncomingMessage, path: string, bodyLimitBytes: number): boolean {
  const { headers } = req;
  if (req.method !== 'POST' || req.url !== path) return false;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  const type = headers['content-type']?.replace(/\s/g, '').toLowerCase();
  if (type !== 'application/json' && type !== 'application/json;charset=utf-8') return false;
  const length = Number(headers['content-length']);
  return length > 0 && length <= bodyLimitBytes;
}

/**
 * A fast lane's body as express.json({strict: true}) reads it: an object or array (a leading
 * byte-order mark dropped, as its decoder does), else undefined (MALFORMED_JSON).
 */
export function strictJson(raw: string): object | undefined {
  try {
    const value: unknown = JSON.parse(raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a request's body as UTF-8 text and calls `onBody` with it, or `onError` when the client went
 * away mid-body. Usually one chunk: decoded as it is, without a copy.
 */
export function readLaneBody(
  req: IncomingMessage,
  onBody: (raw: string) => void,
  onError: (err: Error) => void,
): void {
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  req.on('data', (chunk: Buffer) => {
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  req.once('end', () => {
    onBody(more ? Buffer.concat(more).toString('utf8') : (first?.toString('utf8') ?? ''));
  });
  req.once('error', onError);
}

/** A signal aborted when the client goes away before the answer is sent. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client went away'));
  });
  return controller.signal;
}
