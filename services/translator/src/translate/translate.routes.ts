import type { IncomingMessage } from 'node:http';

import { AppError, clientGone, requireJson } from '@tp/runtime';
import { HOT_CACHE_MISSED, LANGUAGES, languageCode } from '@tp/translation';
import express, { type Express } from 'express';
import { z } from 'zod';

import type { TranslationChain } from '../chain/index.js';
import type { OfflineModelStatus } from '../engines/offline/index.js';
import type { RequestOrigin, TranslateText } from './translate-text.js';

/** The spec's default source language. */
export const DEFAULT_SOURCE = 'zh-CN';

/** Body of POST /translate; unknown fields are refused so that a typo (`targt`) is not silently ignored. */
export const translateBody = z.strictObject({
  text: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  source: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .default(DEFAULT_SOURCE),
  target: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
});

export type TranslateBody = z.infer<typeof translateBody>;

/** Room for the longest accepted text even if every character arrives as a 6-byte \uXXXX escape. */
const translateBodyLimit = (maxTextChars: number): number => maxTextChars * 6 + 16 * 1024;

export interface TranslateRoutesOptions {
  readonly translateText: TranslateText;
  readonly chain: TranslationChain;
  readonly offlineModels: () => readonly OfflineModelStatus[];
  readonly maxTextChars: number;
}

/**
 * POST /translate, GET /languages and GET /engines: internal routes the gateway calls. Answers are
 * plain JSON (the gateway wraps them in its envelope); errors are AppErrors, mapped once by the
 * platform's error handler.
 */
export function translateRoutes(app: Express, options: TranslateRoutesOptions): void {
  const json = express.json({ limit: translateBodyLimit(options.maxTextChars), strict: true });

  app.post('/translate', requireJson, json, async (req, res) => {
    const body = parseBody(req.body);
    const signal = clientGone(res);
    try {
      res.json(await options.translateText.execute(body, requestOrigin(req, signal)));
    } catch (err) {
      // The caller is gone: nobody to answer, and an abort is not a fault worth a 500 in the logs.
      if (signal.aborted) return;
      throw err;
    }
  });

  app.get('/languages', (_req, res) => {
    res.json({ languages: LANGUAGES });
  });

  // The pairs translatable now; `source` and `target` (our codes) narrow the list.
  app.get('/pairs', (req, res) => {
    const { source, target } = pairsQuery(req.query);
    const pairs = options.chain
      .servedPairs()
      .filter((pair) => (!source || pair.source === source) && (!target || pair.target === target));
    res.json({ pairs });
  });

  app.get('/engines', (_req, res) => {
    const models = options.offlineModels().map((model) => ({
      name: model.name,
      source: model.source,
      target: model.target,
      testModel: model.testModel,
      loaded: model.loaded,
      shadowed: model.shadowed,
    }));
    res.json({
      engines: options.chain.status(),
      pairs: options.chain.directory.status(),
      offlineModels: models,
    });
  });
}

/**
 * Who asked: the request's correlation and id, the signal of the caller going away, and whether the
 * caller has just missed the hot cache (`x-hot-cache: miss`, HOT_CACHE_MISSED).
 */
function requestOrigin(req: IncomingMessage, signal: AbortSignal): RequestOrigin {
  // The platform sets x-correlation-id to the request id when the caller sent none.
  const correlation = req.headers['x-correlation-id'];
  return {
    correlationId: typeof correlation === 'string' ? correlation : req.id,
    causationId: req.id,
    signal,
    cacheMissed: req.headers[HOT_CACHE_MISSED.name] === HOT_CACHE_MISSED.value,
  };
}

/** The optional language filters of GET /pairs, normalised like any other code. */
function pairsQuery(query: unknown): { source?: string; target?: string } {
  const read = (field: 'source' | 'target') => {
    const value =
      typeof query === 'object' && query !== null ? (query as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' && value !== '' ? languageCode(field, value) : undefined;
  };
  const source = read('source');
  const target = read('target');
  return { ...(source ? { source } : {}), ...(target ? { target } : {}) };
}

/** Every problem at once, in the gateway's issue shape (`body.text`), so a client fixes all in one go. */
export function parseBody(body: unknown): TranslateBody {
  const result = translateBody.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: ['body', ...issue.path.map(String)].join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new AppError('VALIDATION_FAILED', `${first?.path}: ${first?.message}${more}`, { issues });
}
