import { AppError, bindRequestLog, requestLog, type Logger } from '@tp/runtime';
import type { RequestHandler } from 'express';

import { looksLikeApiKey, parseBearer } from './api-key.js';
import type { AuthFailures } from '../rate-limit/rate-limit.js';
import type { ApiKeyStore, Principal } from './api-key.store.js';

/** Who may call a route: anyone, any valid key, or an admin key (the spec's authentication table). */
export type Access = 'public' | 'client' | 'admin';

declare module 'express-serve-static-core' {
  interface Locals {
    principal?: Principal;
  }
}

const AUTH_FAILURES = new Set(['API_KEY_MISSING', 'API_KEY_MALFORMED', 'API_KEY_INVALID', 'API_KEY_REVOKED']);

/**
 * Missing, malformed, unknown or revoked key -> 401; a valid key without the role -> 403. The key is
 * never logged (the logger redacts the Authorization header) nor echoed in an error message. A client
 * address that failed too often this minute gets 429 before its key costs a Postgres query. On a
 * public route a request without `Authorization` goes on anonymous; one with it is checked exactly
 * as on a keyed route, so a bad key is refused there too and a good one is counted as that key.
 */
export function authenticate(store: ApiKeyStore, access: Access, failures?: AuthFailures): RequestHandler {
  return (req, res, next) => {
    if (access === 'public' && parseBearer(req.headers.authorization).kind === 'missing') {
      next();
      return;
    }
    const refused = failures?.refuse(req, res);
    if (refused) {
      next(refused);
      return;
    }
    identify(store, req.headers.authorization, access, () => requestLog(req)).then(
      (principal) => {
        res.locals.principal = principal;
        bindRequestLog(req, { api_key_id: principal.keyId });
        next();
      },
      (err: unknown) => {
        // Counted before the answer, so the client's next attempt finds the count.
        const counted =
          err instanceof AppError && AUTH_FAILURES.has(err.code) ? failures?.record(req) : undefined;
        void Promise.resolve(counted).then(() => next(err));
      },
    );
  };
}

async function identify(
  store: ApiKeyStore,
  header: string | undefined,
  access: Access,
  log: () => Logger,
): Promise<Principal> {
  const bearer = parseBearer(header);
  if (bearer.kind === 'missing') {
    throw new AppError('API_KEY_MISSING', 'this route needs Authorization: Bearer <API key>');
  }
  if (bearer.kind === 'malformed') {
    throw new AppError('API_KEY_MALFORMED', 'the Authorization header must be of the form Bearer <API key>');
  }
  if (!looksLikeApiKey(bearer.token)) throw new AppError('API_KEY_INVALID', 'the API key is not valid');
  const found = await store.lookup(bearer.token).catch((err: unknown) => {
    log().error({ err }, 'API key lookup failed');
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot check the API key right now; retry later');
  });
  if (found.kind === 'unknown') throw new AppError('API_KEY_INVALID', 'the API key is not valid');
  if (found.kind === 'revoked') throw new AppError('API_KEY_REVOKED', 'the API key was revoked');
  if (access === 'admin' && found.principal.role !== 'admin') {
    throw new AppError('FORBIDDEN', 'this route needs an admin API key');
  }
  return found.principal;
}
