import type { IncomingMessage } from 'node:http';

import { AppError, clientGone, requireJson } from '@tp/runtime';
import {
  languageDetectRequest,
  pairsQuery,
  translateBatchRequest,
  translateRequest,
  type ItemError,
  type TranslateBatchAnswer,
  type languageDetectAnswer,
  type EnginesAnswer,
  type pairsAnswer,
  type languagesAnswer,
  type TranslationResult,
} from '@tp/service-contracts';
import { LANGUAGES, languageCode } from '@tp/translation';
import express, { type Express, type RequestHandler } from 'express';
import type { z } from 'zod';

import type { TranslationChain } from '../chain/index.js';
import type { OfflineModelStatus } from '../engines/offline/index.js';
import type { LanguageDetector } from './detect-language.js';
import type { RequestOrigin, TranslateText } from './translate-text.js';

export type TranslateBody = z.output<typeof translateRequest>;

/** Room for the longest accepted text even if every character arrives as a 6-byte \uXXXX escape. */
const translateBodyLimit = (maxTextChars: number): number => maxTextChars * 6 + 16 * 1024;

export interface TranslateRoutesOptions {
  readonly translateText: TranslateText;
  readonly chain: TranslationChain;
  readonly offlineModels: () => readonly OfflineModelStatus[];
  readonly maxTextChars: number;
  /** The detector of `source: auto`, also answering POST /detect. */
  readonly detector: LanguageDetector;
}

/**
 * POST /translate, POST /detect, GET /languages and GET /engines: internal routes the gateway calls. Answers are
 * plain JSON (the gateway wraps them in its envelope); errors are AppErrors, mapped once by the
 * platform's error handler.
 */
export function translateRoutes(app: Express, options: TranslateRoutesOptions): void {
  const json = express.json({ limit: translateBodyLimit(options.maxTextChars), strict: true });

  app.post('/translate', requireJson, json, async (req, res) => {
    const body = parseBody(req.body);
    const signal = clientGone(res);
    try {
      const answer: TranslationResult = await options.translateText.execute(body, requestOrigin(req, signal));
      res.json(answer);
    } catch (err) {
      // The caller is gone: nobody to answer, and an abort is not a fault worth a 500 in the logs.
      if (signal.aborted) return;
      throw err;
    }
  });

  // Texts of one pair, each with its own translation or error, in order.
  app.post('/translate/batch', requireJson, json, translateBatch(options.translateText));

  // The language of each text, by the detector `source: auto` uses (the gateway checks the lengths).
  app.post('/detect', requireJson, json, (req, res) => {
    const { texts } = parseRequest(languageDetectRequest, req.body, 'body');
    const answer: z.input<typeof languageDetectAnswer> = {
      detections: texts.map((text) => {
        const detection = options.detector.identify(text);
        return { ...detection, candidates: [...detection.candidates] };
      }),
    };
    res.json(answer);
  });

  app.get('/languages', (_req, res) => {
    const answer: z.input<typeof languagesAnswer> = { languages: [...LANGUAGES] };
    res.json(answer);
  });

  // The pairs translatable now; `source` and `target` (our codes) narrow the list.
  app.get('/pairs', (req, res) => {
    const { source, target } = pairsFilter(req.query);
    const pairs = options.chain
      .servedPairs()
      .filter((pair) => (!source || pair.source === source) && (!target || pair.target === target));
    const answer: z.input<typeof pairsAnswer> = { pairs };
    res.json(answer);
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
    const answer: EnginesAnswer = {
      engines: options.chain.status(),
      pairs: options.chain.directory.status(),
      offlineModels: models,
    };
    res.json(answer);
  });
}

/** POST /translate/batch's handler. */
function translateBatch(translateText: TranslateText): RequestHandler {
  return async (req, res) => {
    const body = parseRequest(translateBatchRequest, req.body, 'body');
    const signal = clientGone(res);
    try {
      const items = await translateText.executeBatch(body, requestOrigin(req, signal));
      const answer: TranslateBatchAnswer = {
        items: items.map((item) => (item instanceof AppError ? { error: itemError(item) } : item)),
        failed: items.filter((item) => item instanceof AppError).length,
      };
      res.json(answer);
    } catch (err) {
      // The caller is gone: nobody to answer.
      if (signal.aborted) return;
      throw err;
    }
  };
}

/** A text's own failure, as the error envelope has it. */
function itemError(error: AppError): ItemError {
  return {
    code: error.numeric,
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

/** Who asked: the request's correlation and id, and the signal of the caller going away. */
function requestOrigin(req: IncomingMessage, signal: AbortSignal): RequestOrigin {
  // The platform sets x-correlation-id to the request id when the caller sent none.
  const correlation = req.headers['x-correlation-id'];
  return {
    correlationId: typeof correlation === 'string' ? correlation : req.id,
    causationId: req.id,
    signal,
  };
}

/** The optional language filters of GET /pairs, normalised like any other code. */
function pairsFilter(query: unknown): { source?: string; target?: string } {
  const { source, target } = parseRequest(pairsQuery, query, 'query');
  return {
    ...(source ? { source: languageCode('source', source) } : {}),
    ...(target ? { target: languageCode('target', target) } : {}),
  };
}

/** Every problem at once, in the gateway's issue shape (`body.text`), so a client fixes all in one go. */
export function parseBody(body: unknown): TranslateBody {
  return parseRequest(translateRequest, body, 'body');
}

function parseRequest<S extends z.ZodType>(schema: S, value: unknown, part: 'body' | 'query'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new AppError('VALIDATION_FAILED', `${first?.path}: ${first?.message}${more}`, { issues });
}
