import type { IncomingMessage } from 'node:http';

import { assertTextLength, codePointString, requestId } from '@tp/runtime';
import type { CachedTranslation, HotCache } from '@tp/translation';
import { LANGUAGES, languageCode } from '@tp/translation';
import { DEFAULT_SOURCE, language, servedPair, type TranslationResult } from '@tp/service-contracts';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import type { TranslatorClient } from './translator-client.js';

export const translationSchema = z
  .object({
    translatedText: z.string(),
    source: z.string().meta({ description: 'Source language actually used (the detected one for `auto`).' }),
    target: z.string(),
    duration: z.number().meta({ description: 'Seconds spent; close to 0 on a cache hit.' }),
    engine: z.string().meta({
      description:
        'opencc (zh-CN <-> zh-TW conversion), deepl, google, mymemory, libretranslate, apertium or offline; two joined by + when a pivot route used both.',
    }),
    cached: z.boolean().meta({ description: 'Answered from the hot cache.' }),
    truncated: z.boolean().meta({
      description: 'Only a prefix was translated (the free fallback engine stops at 500 characters).',
    }),
    route: z
      .array(z.object({ source: z.string(), target: z.string(), engine: z.string() }))
      .optional()
      .meta({
        description:
          'How it was translated: one step for the pair itself, two through a pivot language (en -> es -> pt). Absent on a cache hit.',
      }),
    unknownWords: z.int().optional().meta({
      description:
        'Words the engine could not translate and left as they were (Apertium says); absent when the engine does not say.',
    }),
  })
  .meta({ id: 'Translation' });

const tag = z.string().min(1).max(35);
const tagOf = (field: string) => tag.meta({ description: `Only pairs with this ${field} language.` });

const pairsQuery = z.strictObject({
  source: tagOf('source').optional(),
  target: tagOf('target').optional(),
});

/** The body of POST /api/v1/translate. */
export const translateBody = z.strictObject({
  text: z.string().min(1, { message: 'text must not be empty' }),
  source: tag.default(DEFAULT_SOURCE).meta({ description: 'Language code, or `auto`; default zh-CN.' }),
  target: tag,
});

/**
 * translateBody as the document shows it: `text` of at most `maxTextChars` code points, which the
 * handler enforces (413 TEXT_TOO_LONG, with a limit that depends on the key: translationRequest).
 */
export const documentedTranslateBody = (maxTextChars: number) =>
  translateBody.extend({
    text: codePointString(maxTextChars, { check: false }).min(1, { message: 'text must not be empty' }),
  });

export type Translation = z.input<typeof translationSchema>;

/** A validated body with canonical language codes; throws the route's 400/413 otherwise. */
export function translationRequest(input: z.output<typeof translateBody>, maxTextChars: number) {
  const request = {
    text: input.text,
    source: languageCode('source', input.source),
    target: languageCode('target', input.target),
  };
  assertTextLength(request.text, maxTextChars);
  return request;
}

/** The answer for a hot-cache hit. */
export function cachedTranslation(hit: CachedTranslation, target: string, seconds: number): Translation {
  return {
    translatedText: hit.translatedText,
    source: hit.source,
    target,
    duration: seconds,
    engine: hit.engine,
    cached: true,
    truncated: false,
  };
}

/** The answer for a translation the translator made (or found in its own read of the cache). */
export function translatedAnswer(result: TranslationResult, seconds: number): Translation {
  return {
    translatedText: result.translatedText,
    source: result.source,
    target: result.target,
    duration: seconds,
    engine: result.engine,
    cached: result.cached,
    truncated: result.truncated,
    ...(result.route ? { route: result.route } : {}),
    ...(result.unknownWords !== undefined ? { unknownWords: result.unknownWords } : {}),
  };
}

/** The spec's limit for anonymous callers; a request with a valid API key may send up to MAX_TEXT_CHARS. */
export const ANONYMOUS_MAX_TEXT_CHARS = 5000;

export interface TranslateRouteOptions {
  readonly translator: TranslatorClient;
  readonly cache: HotCache;
  /** The limit for this request: MAX_TEXT_CHARS with a valid key, ANONYMOUS_MAX_TEXT_CHARS without. */
  readonly maxTextChars: (req: IncomingMessage) => Promise<number>;
  /** MAX_TEXT_CHARS: the most any request may send (with a key), as the document states it. */
  readonly keyedMaxTextChars: number;
}

export function translateRoutes(options: TranslateRouteOptions) {
  return [translateRoute(options), languagesRoute(options.translator), pairsRoute(options.translator)];
}

const translateRoute = ({ translator, cache, maxTextChars, keyedMaxTextChars }: TranslateRouteOptions) =>
  defineRoute({
    method: 'post',
    path: '/api/v1/translate',
    summary: 'Translate text',
    description: `Public. Checks the hot cache, then runs the engine chain. Text longer than 5000 characters is split on sentence boundaries. At most ${ANONYMOUS_MAX_TEXT_CHARS} characters (code points) per request without a key; with \`Authorization: Bearer <key>\` (any role) up to MAX_TEXT_CHARS (${keyedMaxTextChars} here, the document's maxLength); longer is 413 TEXT_TOO_LONG. \`source: "auto"\` detects the language.`,
    tags: ['translation'],
    access: 'public',
    request: { body: documentedTranslateBody(keyedMaxTextChars) },
    response: { status: 200, description: 'The translation.', schema: translationSchema },
    errors: [
      'TEXT_TOO_LONG',
      'TRANSLATION_UNAVAILABLE',
      'TRANSLATOR_UNAVAILABLE',
      'UNSUPPORTED_LANGUAGE',
      'UNSUPPORTED_LANGUAGE_PAIR',
    ],
    handler: async (context) => {
      const { req } = context;
      const started = performance.now();
      const body = translationRequest(context.body, await maxTextChars(req));
      const seconds = () => Math.round(performance.now() - started) / 1000;
      // The translator also stores `auto` requests under `auto`, so those can hit here too.
      const hit = await cache.read(body);
      if (hit) return cachedTranslation(hit, body.target, seconds());
      const result = await translator.translate(body, requestId(req), context.signal);
      return translatedAnswer(result, seconds());
    },
  });

const languagesRoute = (translator: TranslatorClient) =>
  defineRoute({
    method: 'get',
    path: '/api/v1/translate/languages',
    summary: 'Supported languages',
    description:
      'Public. When the translator is down or slow, answers at once with the built-in list and `online: false`.',
    tags: ['translation'],
    access: 'public',
    response: {
      status: 200,
      description: 'The language list.',
      schema: z.object({
        online: z.boolean().meta({ description: 'Whether the translation backend answered.' }),
        languages: z.array(language),
      }),
    },
    handler: async () => {
      const online = await translator.languages();
      return { online: online !== undefined, languages: [...(online ?? LANGUAGES)] };
    },
  });

const pairsRoute = (translator: TranslatorClient) =>
  defineRoute({
    method: 'get',
    path: '/api/v1/translate/pairs',
    summary: 'Language pairs translatable now',
    description:
      'Public. Every pair some configured engine serves now, as the engines themselves say (refreshed periodically), with the engines in chain order; a pair no engine serves directly but two hops do is listed with `via` and its route. `source` and `target` narrow the list.',
    tags: ['translation'],
    access: 'public',
    request: { query: pairsQuery },
    response: {
      status: 200,
      description: 'The pairs.',
      schema: z.object({ pairs: z.array(servedPair) }),
    },
    errors: ['TRANSLATOR_UNAVAILABLE', 'UNSUPPORTED_LANGUAGE'],
    handler: async ({ query, req, signal }) => {
      const filter = {
        ...(query.source ? { source: languageCode('source', query.source) } : {}),
        ...(query.target ? { target: languageCode('target', query.target) } : {}),
      };
      return { pairs: await translator.pairs(filter, requestId(req), signal) };
    },
  });
