import type { IncomingMessage, ServerResponse } from 'node:http';

import { AppError, toAppError, trackRequest, type FastLane, type RequestTracker } from '@tp/runtime';
import { parseHotCacheEntry, type HotCache } from '@tp/translation';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import type { z } from 'zod';

import type { RateLimits } from '../rate-limit/rate-limit.js';
import { clientGone, plainJsonPost, strictJson } from '../http/mount.js';
import { okEnvelope } from '../http/route.js';
import {
  cachedTranslation,
  translateBody,
  translatedAnswer,
  translationRequest,
} from './translate.routes.js';
import type { TranslateCall, TranslatorClient } from './translator-client.js';

const PATH = '/api/v1/translate';

declare module 'node:http' {
  interface IncomingMessage {
    /** An error found by a fast lane; Express answers it as if its own middleware had raised it. */
    laneError?: AppError;
  }
}

export interface CacheHitLaneOptions {
  readonly app: Express;
  readonly cache: HotCache;
  /** Where misses go: the lane asks the translator itself, as the route would. */
  readonly translator: Pick<TranslatorClient, 'translate'>;
  readonly limits: RateLimits;
  readonly tracker: RequestTracker;
  readonly maxTextChars: number;
  readonly bodyLimitBytes: number;
}

/**
 * Answers plain POST /api/v1/translate requests before Express, with the same steps and the same
 * answer as the route (public limit, body, validation, cache read, then on a miss the translator):
 * hot-cache hits at half the CPU per request, misses without Express's routing, body and answer
 * layers (docs/benchmarks.md). Everything else is handed to Express: requests it does not take at all
 * (other routes, browsers' cross-origin calls, bodies that are not plain UTF-8 JSON of a known
 * length) and, after reading the body, every error, so errors are still mapped in one place.
 */
export function cacheHitLane(options: CacheHitLaneOptions): FastLane {
  const { app, cache, translator, limits, tracker } = options;
  const answers = new ReadyAnswers();
  // Express compiles its "trust proxy" setting into this function; the lane finds the client address
  // the way req.ip does.
  const trusted = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
  const handOver = (req: IncomingMessage, res: ServerResponse, error?: AppError) => {
    if (error) req.laneError = error;
    app(req, res);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, raw: string, started: number) => {
    const body = strictJson(raw);
    if (body === undefined) {
      handOver(req, res, toAppError({ type: 'entity.parse.failed' }));
      return;
    }
    (req as { body?: unknown }).body = body;
    const limited = limits.countAddress(req, res, proxyaddr(req, trusted));
    if (limited) return handOver(req, res, limited);
    const valid = plainTranslateBody(body) ?? translateBody.safeParse(body).data;
    if (!valid) return handOver(req, res);
    let request: ReturnType<typeof translationRequest>;
    try {
      request = translationRequest(valid, options.maxTextChars);
    } catch {
      return handOver(req, res);
    }
    const stored = await cache.readRaw(request);
    const ready = stored ? answers.of(stored, request.target) : undefined;
    const id = trackRequest(tracker, req, res, () => PATH, started);
    // A miss's failure is handed to Express by the caller's catch, which maps it (tracked already).
    if (!ready) return translateMiss(translator, res, { request, id, started });
    const seconds = String(secondsSince(started));
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': ready.bytes + seconds.length });
    res.end(ready.head + seconds + ready.tail);
  };

  return (req, res) => {
    if (!takes(req, options.bodyLimitBytes)) return false;
    const started = performance.now();
    req.receivedAt = started;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8'), started).catch((err: unknown) => {
        if (!res.headersSent) handOver(req, res, toAppError(err));
      });
    });
    // The client went away mid-body: Express logs it as an aborted request.
    req.once('error', () => handOver(req, res, new AppError('BAD_REQUEST', 'the request could not be read')));
    return true;
  };
}

const secondsSince = (started: number) => Math.round(performance.now() - started) / 1000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** A miss: the translator's answer, sent as the route sends it (same envelope, same bytes). */
async function translateMiss(
  translator: Pick<TranslatorClient, 'translate'>,
  res: ServerResponse,
  { request, id, started }: { request: TranslateCall; id: string; started: number },
): Promise<void> {
  const result = await translator.translate(request, id, clientGone(res));
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
  private readonly made = new Map<string, ReadyAnswer>();

  of(raw: string, target: string): ReadyAnswer | undefined {
    const key = `${target}\u0000${raw}`;
    const known = this.made.get(key);
    if (known) return known;
    const hit = parseHotCacheEntry(raw);
    if (!hit) return undefined;
    const json = JSON.stringify({ code: 0, data: cachedTranslation(hit, target, DURATION_MARK) });
    const at = json.indexOf(DURATION_FIELD) + DURATION_FIELD.length - String(DURATION_MARK).length;
    const head = json.slice(0, at);
    const tail = json.slice(at + String(DURATION_MARK).length);
    const answer = { head, tail, bytes: Buffer.byteLength(head) + Buffer.byteLength(tail) };
    if (raw.length <= READY_MAX_ENTRY_CHARS) {
      if (this.made.size >= READY_MAX_ENTRIES) this.made.clear();
      this.made.set(key, answer);
    }
    return answer;
  }
}

// A stand-in duration, found as `"duration":<mark>`: a string value cannot hold that sequence, since
// JSON escapes the quotes inside strings.
const DURATION_MARK = 987654.125;
const DURATION_FIELD = `"duration":${DURATION_MARK}`;
const READY_MAX_ENTRIES = 1000;
const READY_MAX_ENTRY_CHARS = 4096;
