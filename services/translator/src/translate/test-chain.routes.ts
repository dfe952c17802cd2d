import { performance } from 'node:perf_hooks';

import { AppError, assertTextLength, requireJson } from '@tp/runtime';
import type { ChainTestResult } from '@tp/service-contracts';
import { languageCode } from '@tp/translation';
import express, { type Express } from 'express';

import { AllEnginesFailedError, type Attempt, type TranslationChain } from '../chain/index.js';
import type { LanguageDetector } from './detect-language.js';
import { parseBody, type TranslateBody } from './translate.routes.js';

export interface TestChainRouteOptions {
  readonly chain: TranslationChain;
  readonly detector: LanguageDetector;
  readonly maxTextChars: number;
}

/**
 * POST /translate/test: the admin "test a translation" call. Runs the engine chain directly, without
 * the hot cache and without persisting the result, so an operator sees which engine answers now and
 * how long each attempt took. Engines' breakers and counters do see the call: it is a real call.
 * All engines failing -> 503 TRANSLATION_UNAVAILABLE with the timed attempts in `details`.
 */
export function testChainRoutes(app: Express, options: TestChainRouteOptions): void {
  const json = express.json({ limit: options.maxTextChars * 6 + 16 * 1024, strict: true });

  app.post('/translate/test', requireJson, json, async (req, res) => {
    const body = parseBody(req.body);
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client went away'));
    });
    try {
      res.json(await testChain(body, options, controller.signal));
    } catch (err) {
      if (controller.signal.aborted) return;
      throw err;
    }
  });
}

/** Checks the codes and the length like POST /translate, then runs the chain once. */
export async function testChain(
  input: TranslateBody,
  { chain, detector, maxTextChars }: TestChainRouteOptions,
  signal: AbortSignal,
): Promise<ChainTestResult> {
  const started = performance.now();
  const seconds = () => Math.round(performance.now() - started) / 1000;
  const source = languageCode('source', input.source);
  const target = languageCode('target', input.target);
  const { text } = input;
  assertTextLength(text, maxTextChars);
  const auto = source === 'auto';
  // Same rule as POST /translate: our own guess when it is trustworthy, else the engines detect.
  const used = auto ? (detector.detect(text) ?? 'auto') : source;
  const detected = auto && used !== 'auto' ? used : undefined;
  if (text.trim() === '' || used === target) {
    return {
      translatedText: text,
      source: used,
      target,
      ...(detected ? { detectedSource: detected } : {}),
      engine: 'none',
      truncated: false,
      duration: seconds(),
      attempts: [],
    };
  }
  try {
    const result = await chain.translate({ text, source: used, target }, signal);
    const actualSource = used === 'auto' ? (result.detectedSource ?? 'auto') : used;
    return {
      translatedText: result.text,
      source: actualSource,
      target,
      ...(auto && actualSource !== 'auto' ? { detectedSource: actualSource } : {}),
      engine: result.engine ?? 'none',
      truncated: result.truncated,
      duration: seconds(),
      attempts: result.attempts.map(timed),
      route: [...result.route],
      ...(result.unknownWords !== undefined ? { unknownWords: result.unknownWords } : {}),
    };
  } catch (err) {
    if (!(err instanceof AllEnginesFailedError)) throw err;
    throw new AppError('TRANSLATION_UNAVAILABLE', err.message, {
      attempts: err.attempts.map(timed),
      duration: seconds(),
    });
  }
}

const timed = ({ slot, engine, outcome, reason, ms, source, target }: Attempt) => ({
  slot,
  engine: engine ?? null,
  outcome,
  ...(reason ? { reason } : {}),
  duration_ms: ms,
  ...(source && target ? { source, target } : {}),
});
