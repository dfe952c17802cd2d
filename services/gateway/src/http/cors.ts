import cors from 'cors';
import type { RequestHandler } from 'express';

/** The headers a browser script may read from our answers. */
const EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'content-language'];

/** CORS for CORS_ORIGINS (`*` among them: any origin), or undefined when none is configured. */
export function gatewayCors(origins: readonly string[]): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.includes('*');
  return cors({ origin: any ? '*' : [...origins], exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });
}
