import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  AppError,
  clientGone,
  plainJsonPost,
  readLaneBody,
  strictJson,
  toAppError,
  trackRequest,
  type FastLane,
  type RequestTracker,
} from '@tp/runtime';
import { parseHotCacheEntry, type HotCache } from '@tp/translation';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import type { z } from 'zod';

import { setLimitHeaders, type Counted, type RateLimits } from '../rate-limit/rate-limit.js';
import { okEnvelope } from '../http/route.js';
import {
  cachedTranslation,
  translateBody,
  translatedAnswer,
  translationRequest,
} from './translate.routes.js';
import type { TranslateCall, TranslatorClient } from './translator-client.js';
import type { GatewayCors } from '../http/cors.js';

const PATH = '/api/v1/translate';

export interface CacheHitLaneOptions {
  readonly app: Express;
  readonly cache: HotCache;
  /** Where misses go: the lane asks the translator itself, as the route would. */
  readonly translator: Pick<TranslatorClient, 'translateMissed'>;
  readonly limits: RateLimits;
  readonly tracker: RequestTracker;
  readonly maxTextChars: number;
  readonly bodyLimitBytes: number;
  /** CORS_ORIGINS: the headers Express's cors middleware would add to the answer. */
  readonly cors?: GatewayCors | undefined;
}

/**
 * Answers plain POST /api/v1/translate requests before Express, with the same steps and the same
 * answer as the route (public limit, body, validation, cache read, then on a miss the translator):
 * hot-cache hits at half the CPU per request, misses without Express's routing, body and answer
 * layers (docs/benchmarks.md). Everything else is handed to Express: requests it does not take at all
 * (other routes, requests with a key, bodies that are not plain UTF-8 JSON of a known
 * length) and, after reading the body, every error, so errors are still mapped in one place.
 */
export function cacheHitLane(options: CacheHitLaneOptions): FastLane {
  const { app, cache, translator, limits, tracker } = options;
  const answers = new ReadyAnswers();
  // Express compiles its "trust proxy" setting into this function; the lane finds the client address
  // the way req.ip does.
  const trusted = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
  /** To Express, with the limit's headers (and the request id, once tracked) set on the response. */
  const handOver = (req: IncomingMessage, res: ServerResponse, error?: AppError, counted?: Counted) => {
    setLimitHeaders(res, counted?.lines);
    if (req.tracked) res.setHeader('x-request-id', req.id);
    if (error) req.laneError = error;
    app(req, res);
  };

  /** A valid request's answer: from the cache, else from the translator (errors handed to Express). */
  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    request: TranslateCall,
    lane: LaneState,
  ) => {
    const stored = await cache.readRaw(request);
    const ready = stored ? answers.of(stored, request.target) : undefined;
    // The request id is written with the answer's headers (below, or by handOver and the miss).
    const id = trackRequest(tracker, req, res, route, lane.started, false);
    if (!ready) {
      // The CORS headers too: a failure handed to Express gets the same from its cors middleware.
      for (const lines of [lane.counted?.lines, lane.cors]) setLimitHeaders(res, lines);
      res.setHeader('x-request-id', id);
      return translateMiss(translator, res, { request, id, started: lane.started });
    }
    sendReady(res, ready, id, lane);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string, started: number) => {
    // As express.json({strict: true}) reads it: an object or array, a leading BOM dropped.
    const body = strictJson(raw);
    if (body === undefined) return handOver(req, res, toAppError({ type: 'entity.parse.failed' }));
    (req as { body?: unknown }).body = body;
    const counted = limits.countAddressLines(req, proxyaddr(req, trusted));
    if (counted?.refused) return handOver(req, res, counted.refused, counted);
    const request = validRequest(body, options.maxTextChars);
    if (!request) return handOver(req, res, undefined, counted);
    // A failure (Redis, or the translator on a miss) is mapped by Express, tracked or not.
    serve(req, res, request, { started, counted, cors: options.cors?.lines(req) }).catch((err: unknown) => {
      if (!res.headersSent) handOver(req, res, toAppError(err), counted);
    });
  };

  return (req, res) => {
    if (!takes(req, options.bodyLimitBytes)) return false;
    const started = performance.now();
    req.receivedAt = started;
    readLaneBody(
      req,
      (raw) => {
        try {
          answer(req, res, raw, started);
        } catch (err) {
          if (!res.headersSent) handOver(req, res, toAppError(err));
        }
      },
      // The client went away mid-body: Express logs it as an aborted request.
      () => handOver(req, res, new AppError('BAD_REQUEST', 'the request could not be read')),
    );
    return true;
  };
}

const route = () => PATH;

/** A hit's answer, in one writeHead with every header in the order setHeader would have given them. */
function sendReady(res: ServerResponse, ready: ReadyAnswer, id: string, lane: LaneState): void {
  const seconds = String(secondsSince(lane.started));
  const head = [...(lane.counted?.lines ?? []), 'x-request-id', id, ...(lane.cors ?? [])];
  head.push('content-type', JSON_TYPE);
  head.push('content-length', String(ready.bytes + seconds.length));
  res.writeHead(200, head);
  res.end(ready.head + seconds + ready.tail);
}

/** When a request arrived, what counting it against the public limit gave, its CORS headers. */
interface LaneState {
  readonly started: number;
  readonly counted: Counted | undefined;
  readonly cors: readonly string[] | undefined;
}

/** The translation a valid body asks for, or undefined: Express's route then answers the 400/413. */
function validRequest(body: object, maxTextChars: number): TranslateCall | undefined {
  const valid = plainTranslateBody(body) ?? translateBody.safeParse(body).data;
  if (!valid) return undefined;
  try {
    return translationRequest(valid, maxTextChars);
  } catch {
    return undefined;
  }
}

const secondsSince = (started: number) => Math.round(performance.now() - started) / 1000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** A miss: the translator's answer, sent as the route sends it (same envelope, same bytes). */
async function translateMiss(
  translator: Pick<TranslatorClient, 'translateMissed'>,
  res: ServerResponse,
  { request, id, started }: { request: TranslateCall; id: string; started: number },
): Promise<void> {
  const result = await translator.translateMissed(request, id, clientGone(res));
  // The client went away as the answer came: nothing to send it to.
  if (res.destroyed) return;
  const json = JSON.stringify(okEnvelope(translatedAnswer(result, secondsSince(started))));
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

/** Plain JSON posts without a key: keyed requests have a larger text limit, which needs the key looked up. */
const takes = (req: IncomingMessage, bodyLimitBytes: number): boolean =>
  req.headers.authorization === undefined && plainJsonPost(req, PATH, bodyLimitBytes);

/**
 * The body as `translateBody` parses it, checked by hand for the usual shape (an object with a
 * non-empty `text`, a `target` and maybe a `source`, all strings of allowed lengths); undefined for
 * anything else, which the schema then judges. Never accepts what the schema refuses.
 */
function plainTranslateBody(body: object): z.output<typeof translateBody> | undefined {
  if (Array.isArray(body)) return undefined;
  const { text, source, target } = body as Record<string, unknown>;
  const keys = Object.keys(body).length;
  if (keys !== (source === undefined ? 2 : 3) || typeof text !== 'string' || text.length === 0)
    return undefined;
  if (!isTag(target) || (source !== undefined && !isTag(source))) return undefined;
  return { text, source: source ?? 'zh-CN', target };
}

const isTag = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= 35;

/** A cache hit's answer, serialised but for its duration: head + seconds + tail. */
interface ReadyAnswer {
  readonly head: string;
  readonly tail: string;
  /** UTF-8 bytes of head and tail. */
  readonly bytes: number;
}

/**
 * The answers of recent hot-cache entries, ready to send: an entry read again (as it is, from Redis)
 * is not parsed and serialised again. The same bytes as JSON.stringify of the route's envelope, with
 * `duration` written by String(), which JSON uses for finite numbers. Bounded: emptied when full.
 */
class ReadyAnswers {
  /** By target language, then by the entry's text (no key string joined from both per request). */
  private readonly made = new Map<string, Map<string, ReadyAnswer>>();
  private count = 0;

  of(raw: string, target: string): ReadyAnswer | undefined {
    const known = this.made.get(target)?.get(raw);
    if (known) return known;
    const hit = parseHotCacheEntry(raw);
    if (!hit) return undefined;
    const json = JSON.stringify({ code: 0, data: cachedTranslation(hit, target, DURATION_MARK) });
    const at = json.indexOf(DURATION_FIELD) + DURATION_FIELD.length - String(DURATION_MARK).length;
    const head = json.slice(0, at);
    const tail = json.slice(at + String(DURATION_MARK).length);
    const answer = { head, tail, bytes: Buffer.byteLength(head) + Buffer.byteLength(tail) };
    if (raw.length <= READY_MAX_ENTRY_CHARS) this.keep(target, raw, answer);
    return answer;
  }

  private keep(target: string, raw: string, answer: ReadyAnswer): void {
    if (this.count >= READY_MAX_ENTRIES) {
      this.made.clear();
      this.count = 0;
    }
    let byText = this.made.get(target);
    if (!byText) {
      byText = new Map();
      this.made.set(target, byText);
    }
    byText.set(raw, answer);
    this.count += 1;
  }
}

// A stand-in duration, found as `"duration":<mark>`: a string value cannot hold that sequence, since
// JSON escapes the quotes inside strings.
const DURATION_MARK = 987654.125;
const DURATION_FIELD = `"duration":${DURATION_MARK}`;
const READY_MAX_ENTRIES = 1000;
const READY_MAX_ENTRY_CHARS = 4096;
