import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  perRegistry,
  toAppError,
  trackRequest,
  type AppError,
  type FastLane,
  type RequestTracker,
} from '@tp/runtime';
import type { Express } from 'express';
import { Counter, type Registry } from 'prom-client';
import proxyaddr from 'proxy-addr';

import type { ApiKeyStore, Principal } from '../../auth/api-key.store.js';
import { rememberedPrincipal } from '../../auth/remembered-principal.js';
import { expressPath, okEnvelope } from '../../http/route.js';
import { setLimitHeaders, type Counted, type RateLimits } from '../../rate-limit/rate-limit.js';
import { LANGUAGE_TAG, MAX_LANGUAGE_TAG_CHARS } from '../language.js';
import { parseCachedContent, type ContentReadCache } from './content-read-cache.js';
import { languageChain } from './language-chain.js';
import { SOURCE } from './read-content.js';
import type { TrackedReads } from './tracked-reads.js';
import { contentLanguage, READ_ENTITY_PATH, READ_VENDOR_PATH, viewBody } from './read-content.routes.js';
import type { GatewayCors } from '../../http/cors.js';

export interface ReadCacheLaneOptions {
  readonly app: Express;
  readonly cache: ContentReadCache;
  readonly keys: ApiKeyStore;
  readonly limits: RateLimits;
  readonly tracker: RequestTracker;
  readonly metrics: Registry;
  /** Reads Redis tells this process about when they change: answered again without reading Redis. */
  readonly tracking?: TrackedReads | undefined;
  /** CORS_ORIGINS: the headers Express's cors middleware would add to the answer. */
  readonly cors?: GatewayCors | undefined;
}

/** What became of the requests the lane took: answered by it, or handed to Express after the cache read. */
const laneCounter = perRegistry(
  (registry) =>
    new Counter({
      name: 'gateway_read_lane_requests_total',
      help: 'Reads the read-cache lane took, by outcome: answered from the cache, or handed to Express',
      labelNames: ['outcome'],
      registers: [registry],
    }),
);

/**
 * Answers read-cache hits of GET /api/v1/vendors/{vendor_id} and GET /api/v1/content/{type}/{id}
 * before Express, with the route's steps and the same answer (docs/benchmarks.md, bench:merge), from
 * answers kept ready as bytes (`ReadyAnswers`) instead of parsing the cached view and serialising it
 * again per request. It takes only what it can answer without a side effect until the answer is
 * known: a plain GET (no query, no conditional or body headers) of a well-formed path, an
 * API key this process remembers as valid and without a daily request budget, a client address not
 * blocked for failed authentications, and an `x-language` of the language list. Everything else is
 * handed to Express untouched; after the cache read, a miss or an entity outside the key's modules is
 * handed over tracked, and a key over its rate limit with the 429 (counted once either way).
 */
export function readCacheLane(options: ReadCacheLaneOptions): FastLane {
  const { app, cache, keys, limits, tracker, tracking } = options;
  const counter = laneCounter(options.metrics);
  const [answered, handedOver] = [counter.labels('answered'), counter.labels('handed_over')];
  // Express compiles its "trust proxy" setting into this function; the lane finds the client address
  // the way req.ip does.
  const trusted = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
  const answers = new ReadyAnswers();
  tracking?.listen((key) => {
    answers.distrust(key);
  });
  /** To Express, with the request id and the limit's headers (once counted) set on the response. */
  const handOver = (req: IncomingMessage, res: ServerResponse, error?: AppError, counted?: Counted) => {
    handedOver.inc();
    res.setHeader('x-request-id', req.id);
    setLimitHeaders(res, counted?.lines);
    if (error) req.laneError = error;
    app(req, res);
  };
  /** Answers from `ready` (undefined: not a view), or hands over as the route would decide. */
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    read: LaneRead,
    principal: Principal,
    ready: ReadyAnswer | undefined,
  ) => {
    if (!ready || (principal.modules !== undefined && !principal.modules.includes(ready.module))) {
      return handOver(req, res);
    }
    const counted = limits.countKeyLines(principal.keyId);
    if (counted?.refused) return handOver(req, res, counted.refused, counted);
    // The span of the request is named after the route, as for requests Express routes.
    (req as { route?: unknown }).route = read.route;
    res.writeHead(200, readyHead(req.id, counted, ready, options.cors?.lines(req)));
    res.end(ready.answer);
    answered.inc();
  };
  const failed = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    if (!res.headersSent) handOver(req, res, toAppError(err));
  };
  return (req, res) => {
    const read = laneRead(req);
    if (!read) return false;
    const principal = rememberedPrincipal(keys, req.headers.authorization);
    if (!principal || principal.limits.requestsPerDay !== null) return false;
    if (limits.authFailures.blocked(() => proxyaddr(req, trusted))) return false;
    // The request id is written with the answer's headers (or by handOver).
    trackRequest(tracker, req, res, read.route.label, undefined, false);
    const key = cache.keyOf(read.type, read.id);
    // A text Redis has not invalidated since it was read here: answered without reading Redis.
    const kept = tracking && answers.trusted(key, read.language.asked, tracking);
    if (kept) {
      try {
        answer(req, res, read, principal, kept.ready);
      } catch (err) {
        failed(req, res, err);
      }
      return true;
    }
    readReady(cache, tracking, answers, key, read)
      .then((ready) => answer(req, res, read, principal, ready))
      .catch((err: unknown) => failed(req, res, err));
    return true;
  };
}

/**
 * The ready answer of `read` after reading Redis (on the tracking connection when it is ready), or
 * undefined: a miss, or Redis down or slow.
 */
async function readReady(
  cache: ContentReadCache,
  tracking: TrackedReads | undefined,
  answers: ReadyAnswers,
  key: string,
  read: LaneRead,
): Promise<ReadyAnswer | undefined> {
  const tracked = tracking?.read(key, read.language.asked);
  if (tracking && tracked) {
    const found = await tracked;
    return found && answers.get(key, read, found.raw, found.session, tracking.trustedUntil(found));
  }
  const raw = await cache.readRaw(read.type, read.id, read.language.asked);
  return raw && answers.get(key, read, raw, -1, 0);
}

/** The language asked: the chain of codes to look for, and the read cache's field for it. */
interface Language {
  readonly chain: readonly string[] | undefined;
  readonly asked: string;
}

/** A read the lane may answer. */
interface LaneRead {
  /** The Express route it stands for, and its label in the access log and metrics. */
  readonly route: { readonly path: string; readonly label: () => string };
  readonly type: string;
  readonly id: string;
  readonly language: Language;
}

const VENDOR_PREFIX = '/api/v1/vendors/';
const CONTENT_PREFIX = '/api/v1/content/';
const routeOf = (template: string) => {
  const path = expressPath(template);
  return { path, label: () => path };
};
const VENDOR_ROUTE = routeOf(READ_VENDOR_PATH);
const ENTITY_ROUTE = routeOf(READ_ENTITY_PATH);
/** A hit's headers, for one writeHead, in the order setHeader would have given them. */
function readyHead(
  id: string,
  counted: Counted | undefined,
  ready: ReadyAnswer,
  cors: readonly string[] = [],
): string[] {
  const head = ['x-request-id', id, ...(counted?.lines ?? []), ...cors];
  if (ready.contentLanguage !== undefined) head.push('Content-Language', ready.contentLanguage);
  head.push('Content-Type', JSON_TYPE, 'Content-Length', ready.length);
  return head;
}

/** Ids the lane takes: what needs no URL decoding (others, valid or not, are Express's). */
const PLAIN_ID = /^[\w.~-]{1,200}$/;
/** The entitySegment schema's pattern. */
const TYPE = /^[a-z0-9_-]{1,100}$/;
/** GET /api/v1/content/tracking/{tracking_id} is registered first and takes this type. */
const RESERVED_TYPE = 'tracking';

/** What the lane may answer of this request, or undefined (Express takes it). */
function laneRead(req: IncomingMessage): LaneRead | undefined {
  const { headers, url } = req;
  // A browser's Origin is taken: the answer carries the CORS headers Express would add (cors.ts).
  if (req.method !== 'GET' || url === undefined) return undefined;
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return undefined;
  if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const language = languageOf(headers['x-language']);
  if (!language) return undefined;
  if (url.startsWith(VENDOR_PREFIX)) {
    const id = url.slice(VENDOR_PREFIX.length);
    return PLAIN_ID.test(id) ? { route: VENDOR_ROUTE, type: 'vendor', id, language } : undefined;
  }
  if (!url.startsWith(CONTENT_PREFIX)) return undefined;
  const slash = url.indexOf('/', CONTENT_PREFIX.length);
  const type = url.slice(CONTENT_PREFIX.length, slash);
  const id = url.slice(slash + 1);
  if (slash < 0 || type === RESERVED_TYPE || !TYPE.test(type) || !PLAIN_ID.test(id)) return undefined;
  return { route: ENTITY_ROUTE, type, id, language };
}

/** The source text: no x-language, or an empty one. */
const SOURCE_LANGUAGE: Language = { chain: undefined, asked: SOURCE };
/** Chains of the tags seen (null: no code of the list matches), at most MAX_TAGS of them. */
const chains = new Map<string, Language | null>();
const MAX_TAGS = 256;

/** The language of an x-language header, or undefined when Express must answer it (a 400). */
function languageOf(tag: string | string[] | undefined): Language | undefined {
  if (tag === undefined || tag === '') return SOURCE_LANGUAGE;
  if (typeof tag !== 'string') return undefined;
  let language = chains.get(tag);
  if (language === undefined) {
    if (tag.length > MAX_LANGUAGE_TAG_CHARS || !LANGUAGE_TAG.test(tag)) return undefined;
    const chain = languageChain(tag);
    language = chain.length === 0 ? null : { chain, asked: chain.join(',') };
    if (chains.size >= MAX_TAGS) chains.clear();
    chains.set(tag, language);
  }
  return language ?? undefined;
}

/** A cached view ready to send: its module (for scoped keys), Content-Language and answer bytes. */
interface ReadyAnswer {
  readonly module: string;
  readonly contentLanguage: string | undefined;
  readonly answer: Buffer;
  /** The answer's byte length, as the Content-Length value. */
  readonly length: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The cached text an answer was made from (a copy), the answer (undefined: not a view), and until
 * when it may be answered without reading Redis (`trustedUntil`, performance.now() ms, for reads on
 * the tracking connection `session`; 0: read Redis and compare).
 */
interface Kept {
  readonly raw: Buffer;
  readonly ready: ReadyAnswer | undefined;
  session: number;
  trustedUntil: number;
}

/** Most bytes (cached texts and answers) kept ready; the oldest entities go first. */
const MAX_READY_BYTES = 16 * 2 ** 20;

const sizeOf = (asked: string, { raw, ready }: Kept) =>
  asked.length + raw.length + (ready?.answer.length ?? 0);

/**
 * Answers made from cached views, by the entity's read-cache key and the language asked, each with
 * the cached text it was made from: it is used only while Redis holds that very text (compared byte
 * for byte after a read, or known unchanged by tracking, see TrackedReads), so nothing here can be
 * stale. Made with the route's own steps: the envelope, `viewBody` and `contentLanguage`.
 */
class ReadyAnswers {
  readonly #kept = new Map<string, Map<string, Kept>>();
  #bytes = 0;

  /** The kept answer of `key` in `asked` that tracking says is still what Redis holds, if any. */
  trusted(key: string, asked: string, tracking: TrackedReads): Kept | undefined {
    const kept = this.#kept.get(key)?.get(asked);
    return kept && tracking.trusts(kept.session, kept.trustedUntil, performance.now()) ? kept : undefined;
  }

  /** Redis changed `key` (undefined: every key): its answers are compared with Redis again. */
  distrust(key: string | undefined): void {
    const entity = key === undefined ? undefined : this.#kept.get(key);
    for (const kept of entity?.values() ?? []) kept.trustedUntil = 0;
  }

  /** The answer of the text `raw` just read (made when it differs from the kept one). */
  get(
    key: string,
    read: LaneRead,
    raw: Buffer,
    session: number,
    trustedUntil: number,
  ): ReadyAnswer | undefined {
    const asked = read.language.asked;
    const kept = this.#kept.get(key)?.get(asked);
    if (kept?.raw.equals(raw)) {
      kept.session = session;
      kept.trustedUntil = trustedUntil;
      return kept.ready;
    }
    const entry = parseCachedContent(raw.toString('utf8'));
    const answer = entry && Buffer.from(JSON.stringify(okEnvelope(viewBody(entry.view, false))));
    const ready = entry &&
      answer && {
        module: entry.view.module,
        contentLanguage: contentLanguage([entry], read.language.chain),
        answer,
        length: String(answer.length),
      };
    // A copy: `raw` shares the buffer the socket read.
    this.#keep(key, asked, { raw: Buffer.from(raw), ready, session, trustedUntil });
    return ready;
  }

  #keep(key: string, asked: string, kept: Kept): void {
    const entity = this.#kept.get(key) ?? new Map<string, Kept>();
    const previous = entity.get(asked);
    if (previous) this.#bytes -= sizeOf(asked, previous);
    this.#bytes += sizeOf(asked, kept);
    entity.set(asked, kept);
    // The entity moves to the newest end.
    this.#kept.delete(key);
    this.#kept.set(key, entity);
    for (const [oldest, answers] of this.#kept) {
      if (this.#bytes <= MAX_READY_BYTES) break;
      this.#kept.delete(oldest);
      for (const [language, dropped] of answers) this.#bytes -= sizeOf(language, dropped);
    }
  }
}
