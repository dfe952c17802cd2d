import { AppError, clientGone, requireJson } from '@tp/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';

import express, { type Express, type Request, type RequestHandler, type Response } from 'express';

import type { ApiKeyStore, Principal } from '../auth/api-key.store.js';
import { authenticate } from '../auth/authenticate.js';
import type { BudgetStore } from '../keys/budgets/budget.store.js';
import { requestBudget } from '../keys/budgets/budgets.js';
import type { RateLimits } from '../rate-limit/rate-limit.js';
import { expressPath, okEnvelope, type AnyRoute } from './route.js';
import { parseRequest, type ParsedRequest } from './validate.js';

export interface MountOptions {
  readonly keys: ApiKeyStore;
  readonly budgets: BudgetStore;
  readonly limits: RateLimits;
  readonly bodyLimitKb: number;
}

/**
 * Registers routes in the order every request is handled: auth (401/403; on a public route only when
 * the request carries `Authorization`), the per-key rate limit (per client address for an anonymous
 * request), the key's requests-per-day budget (429), body reading (415/413/400), validation (400),
 * the handler. Then a 405 with
 * `Allow` for known paths called with another method, naming what each allowed method does there.
 */
export function mountRoutes(app: Express, routes: readonly AnyRoute[], options: MountOptions): void {
  const json = express.json({ limit: `${options.bodyLimitKb}kb`, strict: true, verify: noteEmptyBody });
  const form = express.urlencoded({
    limit: `${options.bodyLimitKb}kb`,
    extended: false,
    parameterLimit: FORM_FIELDS,
    verify: noteEmptyBody,
  });
  const multipart = multipartTextFields(options.bodyLimitKb);
  const declared = refuseDeclaredOversize(options.bodyLimitKb);
  const budget = requestBudget(options.budgets);
  const { byKey, byAddress } = options.limits;
  // A public route's request is limited per key when it carries one, per client address otherwise.
  const byCaller: RequestHandler = (req, res, next) =>
    (res.locals.principal ? byKey : byAddress)(req, res, next);
  for (const route of routes) {
    const access: RequestHandler[] = [
      authenticate(options.keys, route.access, options.limits.authFailures),
      route.access === 'public' ? byCaller : byKey,
      budget,
    ];
    const body: RequestHandler[] = !route.request?.body
      ? []
      : route.wire?.multipart
        ? [declared, requireJsonOrForm(FORM_TYPES), json, form, multipart, emptyBodyIsNone]
        : route.wire?.forms
          ? [declared, requireJsonOrForm(FORM_TYPES.slice(0, 1)), json, form, emptyBodyIsNone]
          : [declared, requireJson, json, emptyBodyIsNone];
    // Another API's wire format may carry the key in the body: the body is read first.
    const chain = route.wire
      ? [...body, adoptCredential(route.wire.credential), ...access]
      : [...access, ...body];
    chain.push(handle(route));
    app[route.method](expressPath(route.path), ...chain);
  }
  const byPath = new Map<string, AnyRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, same] of byPath) {
    const allow = same.flatMap(({ method }) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
    const takes = same.map(({ method, summary }) => `${method.toUpperCase()} (${lowerFirst(summary)})`);
    app.all(expressPath(path), (req, _res, next) => {
      // Where the method asked is taken instead, under the same literal prefix (`/api/v1/content/`).
      const elsewhere = routes
        .filter((r) => r.method === req.method.toLowerCase() && r.path.startsWith(literalPrefix(path)))
        .map((r) => r.path);
      const message = [
        `${req.method} is not allowed on ${path}; it takes ${takes.join(', ')}`,
        ...(elsewhere.length > 0 ? [`${req.method} is taken on ${elsewhere.join(', ')}`] : []),
      ].join('; ');
      const details = {
        allow,
        routes: same.map(({ method, summary }) => ({ method: method.toUpperCase(), path, summary })),
        ...(elsewhere.length > 0 ? { elsewhere } : {}),
      };
      next(new AppError('METHOD_NOT_ALLOWED', message, details, { Allow: allow.join(', ') }));
    });
  }
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The path up to its first parameter: `/api/v1/content/{type}/{id}` -> `/api/v1/content/`. */
const literalPrefix = (path: string) =>
  path.slice(0, path.indexOf('{') < 0 ? path.length : path.indexOf('{'));

/** Requests whose JSON or form body had zero bytes (`Content-Length: 0`). */
const emptyBodies = new WeakSet<IncomingMessage>();

/**
 * A body whose Content-Length passes the limit is refused before a byte of it is read (413), and the
 * connection closes after the answer: express.json would read all of it, discarding, and answer
 * only once the client had sent it. A body without a length is cut off at the limit by express.json.
 */
function refuseDeclaredOversize(limitKb: number): RequestHandler {
  return (req, res, next) => {
    if (Number(req.headers['content-length'] ?? 0) <= limitKb * 1024) return next();
    res.set('Connection', 'close');
    next(new AppError('PAYLOAD_TOO_LARGE', 'request body is too large'));
  };
}

/** express.json's `verify`: it sees the raw bytes before they are parsed. */
function noteEmptyBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  if (buf.length === 0) emptyBodies.add(req);
}

/**
 * express.json reads a JSON body of zero bytes as `{}`, which a schema of optional fields accepts:
 * here it stays what it is, no body, so validation refuses it (400) as it does a request without
 * one, and as the OpenAPI document says (every request body is required).
 */
const emptyBodyIsNone: RequestHandler = (req, _res, next) => {
  if (emptyBodies.has(req)) req.body = undefined;
  next();
};

/** The most fields a form body (urlencoded or multipart) may hold; more is 400. */
const FORM_FIELDS = 1000;
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** A body must be JSON or a form of these types (415 UNSUPPORTED_MEDIA_TYPE otherwise). */
const requireJsonOrForm =
  (types: string[]): RequestHandler =>
  (req, res, next) => {
    if (req.is(types)) next();
    else requireJson(req, res, next);
  };

/**
 * A `multipart/form-data` body (what a browser's FormData posts) read as a form of text fields, within
 * the body limit (413) and FORM_FIELDS (400); a repeated field becomes a list. A file part is 400: no
 * route takes files. A body of zero bytes is no body, as for JSON.
 */
function multipartTextFields(limitKb: number): RequestHandler {
  const raw = express.raw({ type: 'multipart/form-data', limit: `${limitKb}kb` });
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    raw(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      textFields(req).then((fields) => {
        req.body = fields;
        next();
      }, next);
    });
  };
}

async function textFields(req: Request): Promise<Record<string, string | string[]> | undefined> {
  const bytes: unknown = req.body;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) return undefined;
  const headers = { 'content-type': req.headers['content-type'] ?? '' };
  const form = await new globalThis.Response(bytes, { headers }).formData().catch(() => {
    throw new AppError('BAD_REQUEST', 'the multipart/form-data body could not be read');
  });
  const fields = new Map<string, string | string[]>();
  let count = 0;
  for (const [name, value] of form) {
    if (typeof value !== 'string') {
      throw new AppError('BAD_REQUEST', `a form takes text fields only: \`${name}\` is a file`);
    }
    count += 1;
    if (count > FORM_FIELDS) throw new AppError('BAD_REQUEST', `a form has at most ${FORM_FIELDS} fields`);
    const seen = fields.get(name);
    if (seen === undefined) fields.set(name, value);
    else if (Array.isArray(seen)) seen.push(value);
    else fields.set(name, [seen, value]);
  }
  return Object.fromEntries(fields);
}

/**
 * The key where another API carries it (DeepL's `Authorization: DeepL-Auth-Key`, LibreTranslate's
 * `api_key`), as the bearer token the usual auth and the keyed limits read.
 */
function adoptCredential(credential: ((req: Request) => string | undefined) | undefined): RequestHandler {
  return (req, _res, next) => {
    const key = credential?.(req);
    if (key !== undefined) req.headers.authorization = `Bearer ${key}`;
    next();
  };
}

function handle(route: AnyRoute): RequestHandler {
  const envelope = (route.envelope ?? true) && !route.wire;
  return async (req, res) => {
    const context = new HandlerContext(parseRequest(route.request, req), req, res);
    const result = await route.handler(context as Parameters<AnyRoute['handler']>[0]);
    // A handler that wrote the answer itself (a stream), or whose client is gone, has nothing to add.
    if (res.headersSent || res.destroyed) return;
    if (route.response.status === 204) {
      res.status(204).end();
      return;
    }
    res.status(route.response.status).json(envelope ? okEnvelope(result) : result);
  };
}

/**
 * What a handler is given: the validated parts, the caller's key, the request and its answer. One
 * shape for every request (a class, not an object literal spread with a getter), and `signal` made
 * on first use: many answers (a cache hit) never need it. `signal` is read from the context itself:
 * a copy (`{...context}`, a rest pattern) has no `signal`, and the handlers name what they take.
 */
class HandlerContext {
  readonly params: unknown;
  readonly query: unknown;
  readonly headers: unknown;
  readonly body: unknown;
  readonly principal: Principal | undefined;
  #signal: AbortSignal | undefined;

  constructor(
    parsed: ParsedRequest,
    readonly req: Request,
    readonly res: Response,
  ) {
    this.params = parsed.params;
    this.query = parsed.query;
    this.headers = parsed.headers;
    this.body = parsed.body;
    this.principal = res.locals.principal;
  }

  get signal(): AbortSignal {
    return (this.#signal ??= clientGone(this.res));
  }
}
