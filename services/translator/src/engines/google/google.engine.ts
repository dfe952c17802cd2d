import { z } from 'zod';

import { EngineError, type EngineResult, type TranslationEngine } from '../engine.js';
import {
  endpoint,
  isRecord,
  postJson,
  send,
  statusFailure,
  stringField,
  type HttpReply,
} from '../http-errors.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { decodeHtmlEntities } from './google.entities.js';
import { fromGoogleCode, toGoogleCode } from './google.languages.js';

export interface GoogleOptions {
  /**
   * Cloud Translation API key, sent in the `X-goog-api-key` header: a `key=` query parameter would
   * land in every proxy's and server's access log.
   */
  readonly apiKey: string;
  /** Default `https://translation.googleapis.com`. */
  readonly baseUrl?: string;
}

const translateReply = z.object({
  data: z.object({
    translations: z
      .array(z.object({ translatedText: z.string(), detectedSourceLanguage: z.string().optional() }))
      .min(1),
  }),
});

/** 403 reasons that mean "out of quota", not "forbidden". */
const QUOTA_REASONS = new Set([
  'dailyLimitExceeded',
  'userRateLimitExceeded',
  'quotaExceeded',
  'rateLimitExceeded',
]);
const QUOTA_MESSAGE = /daily limit exceeded|user rate limit exceeded|quota exceeded/i;

const languagesReply = z.object({
  data: z.object({ languages: z.array(z.object({ language: z.string() })) }),
});

/** Google answers at most 128 `q` values per request, and recommends at most 5,000 characters in all. */
const BATCH = { maxTexts: 128, maxChars: 5000 };

/**
 * Google Cloud Translation v2 (Basic), `POST /language/translate/v2`, up to 128 texts per call;
 * `GET /language/translate/v2/languages` for the pairs (every listed language into every other).
 */
export function createGoogleEngine(options: GoogleOptions): TranslationEngine {
  const base = endpoint(options.baseUrl ?? 'https://translation.googleapis.com', '/language/translate/v2');
  const url = base;
  const keyHeader = { 'x-goog-api-key': options.apiKey };

  return {
    name: 'google',
    maxChars: 5000,
    batch: BATCH,
    async languagePairs(signal): Promise<PairCoverage> {
      const reply = await send('google', `${base}/languages`, { method: 'GET', headers: keyHeader }, signal);
      if (reply.status !== 200) throw googleFailure(reply);
      const parsed = languagesReply.safeParse(reply.json);
      if (!parsed.success) throw new EngineError('google', 'rejected', 'unexpected languages body');
      const listed = new Set(parsed.data.data.languages.map(({ language }) => language));
      const lists = (code: string) => listed.has(toGoogleCode(code) ?? '');
      return coverageOf((source, target) => lists(source) && lists(target), lists);
    },
    async translate({ texts, source, target }, signal) {
      const auto = source.toLowerCase() === 'auto';
      const sourceCode = auto ? undefined : toGoogleCode(source);
      const targetCode = toGoogleCode(target);
      if (!targetCode || (!auto && !sourceCode)) {
        throw new EngineError('google', 'unsupported', `no Google pair for ${source} -> ${target}`);
      }
      const body = {
        q: texts,
        target: targetCode,
        format: 'text',
        ...(sourceCode ? { source: sourceCode } : {}),
      };
      const reply = await postJson('google', url, body, signal, keyHeader);
      if (reply.status !== 200) throw googleFailure(reply);

      return translatedResults(reply);
    },
  };
}

/** The translations of a 200 reply, in the order of the texts, each with the language Google found. */
function translatedResults(reply: HttpReply): EngineResult[] {
  const parsed = translateReply.safeParse(reply.json);
  if (!parsed.success) throw new EngineError('google', 'rejected', 'unexpected response body');
  return parsed.data.data.translations.map(({ translatedText, detectedSourceLanguage }) => ({
    text: decodeHtmlEntities(translatedText),
    truncated: false,
    ...(detectedSourceLanguage ? { detectedSource: fromGoogleCode(detectedSourceLanguage) } : {}),
  }));
}

function googleFailure(reply: HttpReply): EngineError {
  const error = isRecord(reply.json) ? reply.json.error : undefined;
  const message = stringField(error, 'message');
  const errors = isRecord(error) && Array.isArray(error.errors) ? error.errors : [];
  const reasons = errors.map((e) => stringField(e, 'reason'));
  const quota =
    reasons.some((r) => r !== undefined && QUOTA_REASONS.has(r)) || QUOTA_MESSAGE.test(message ?? '');
  if (reply.status === 403 && quota) {
    return new EngineError('google', 'quota', message ?? 'quota exceeded');
  }
  return statusFailure('google', reply, message);
}
