import type { IncomingMessage, ServerResponse } from 'node:http';

import cors from 'cors';
import type { RequestHandler } from 'express';

/** The headers a browser script may read from our answers. */
const EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'content-language'];

/**
 * CORS for CORS_ORIGINS: Express's `cors` middleware, and the same headers for the answers the fast
 * lanes write before Express. `lines` gives, for a request that is not a preflight (the lanes take
 * only GET and POST; OPTIONS is always Express's), what the middleware sets (cors 2.8): with `*`,
 * `Access-Control-Allow-Origin: *`; with a list, the request's Origin when it is listed (nothing for
 * another or none) and `Vary: Origin` always; then `Access-Control-Expose-Headers`. Equal header
 * for header, a test compares them (lane-cors.int.test.ts).
 */
export interface GatewayCors {
  readonly middleware: RequestHandler;
  /** The CORS headers of an answer to `req`, as a flat name/value list for writeHead. */
  lines(req: IncomingMessage): string[];
  /** The same headers set on `res` (for answers written with setHeader). */
  set(req: IncomingMessage, res: ServerResponse): void;
}

/** CORS for these origins (`*` among them: any origin), or undefined when none is configured. */
export function gatewayCors(origins: readonly string[]): GatewayCors | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const exposed = ['Access-Control-Expose-Headers', EXPOSED_HEADERS.join(',')];
  const lines = (req: IncomingMessage): string[] => {
    if (any) return ['Access-Control-Allow-Origin', '*', ...exposed];
    const origin = req.headers.origin;
    const allow = origin !== undefined && allowed.has(origin) ? ['Access-Control-Allow-Origin', origin] : [];
    return [...allow, 'Vary', 'Origin', ...exposed];
  };
  return {
    middleware: cors({ origin: any ? '*' : [...origins], exposedHeaders: EXPOSED_HEADERS, maxAge: 600 }),
    lines,
    set(req, res) {
      const head = lines(req);
      for (let i = 0; i < head.length; i += 2) res.setHeader(head[i] as string, head[i + 1] as string);
    },
  };
}
