import type { Request } from 'express';

import type { Logger } from '../logger.js';

/** The request's id (from x-request-id or generated), as echoed in the response. */
export const requestId = (req: Request): string => String(req.id);

const childLoggers = new WeakMap<Request, Logger>();
const laterBindings = new WeakMap<Request, Record<string, unknown>>();

/**
 * The request's logger, bound to its request and correlation ids and to what `bindRequestLog` added;
 * made on first use (most requests never need one: a pino child costs a serialisation of its
 * bindings), from the logger createHttpApp was given.
 */
export function requestLog(req: Request): Logger {
  let child = childLoggers.get(req);
  if (!child) {
    const root = req.app.get('logger') as Logger;
    child = root.child({
      req_id: req.id,
      correlation_id: req.headers['x-correlation-id'],
      ...laterBindings.get(req),
    });
    childLoggers.set(req, child);
  }
  return child;
}

/** Adds fields to every line of the request's logger, without making one if none was needed yet. */
export function bindRequestLog(req: Request, bindings: Record<string, unknown>): void {
  const child = childLoggers.get(req);
  if (child) child.setBindings(bindings);
  else laterBindings.set(req, { ...laterBindings.get(req), ...bindings });
}
