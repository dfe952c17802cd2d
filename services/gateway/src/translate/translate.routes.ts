import type { IncomingMessage } from 'node:http';

import { AppError, assertTextLength, codePointString, requestId, type ErrorCode } from '@tp/runtime';
import type { GlossaryVersions } from '@tp/db';
import type { CachedTranslation, HotCache } from '@tp/translation';
import { LANGUAGES, TEXT_FORMATS, languageCode, type TextFormat } from '@tp/translation';
import {
  DEFAULT_SOURCE,
  MAX_TRANSLATE_TEXTS,
  controlsReport,
  itemError,
  translationControls,
  language,
  servedPair,
  type TranslateBatchAnswer,
  type TranslationResult,
} from '@tp/service-contracts';
import { z } from 'zod';

import { defineRoute, type RequestSchemas, type RouteContext } from '../http/route.js';
import { actualCounts, expectedCounts, type CharacterUsage } from '../usage/character-usage.js';
import type { TranslatorClient } from './translator-client.js';

type RouteContextOf = Pick<RouteContext<RequestSchemas>, 'req' | 'signal' | 'principal'>;

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
    controls: controlsReport,
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

const oneText = z.string().min(1, { message: 'text must not be empty' });

/**
 * What a value that is neither one text nor a list of them (129 texts, a number, a list holding one)
 * is told, rather than zod's "Invalid input".
 */
const TEXTS_RULE = { error: `one text, or a list of 1 to ${MAX_TRANSLATE_TEXTS} texts` };

/** One text or a list of them, as every translate route takes them. */
export const textOrTexts = (one: z.ZodString) =>
  z.union([one, z.array(z.string()).min(1).max(MAX_TRANSLATE_TEXTS)], TEXTS_RULE);
const pairFields = {
  source: tag.default(DEFAULT_SOURCE).meta({ description: 'Language code, or `auto`; default zh-CN.' }),
  target: tag,
};

const format = z.enum(TEXT_FORMATS).default('text').meta({
  description:
    'How the text is written. `html`: text nodes and the alt, title, placeholder and aria-label attributes are translated with inline tags kept in place; translate="no", class notranslate, code, pre, script and style are left as they are; the answer is well-formed HTML. `markdown`: code, URLs, link targets and HTML blocks are left as they are; emphasis, links, lists and headings are kept. Markup beyond the limits of docs/api.md is 400 MARKUP_TOO_COMPLEX.',
});

/** The body of POST /api/v1/translate. */
export const translateBody = z.strictObject({
  text: textOrTexts(oneText),
  ...pairFields,
  format,
  glossary: translationControls.glossary.meta({
    description:
      "A stored glossary's id or name; it must be the pair's (400 otherwise). Without it the pair's glossary, if any, applies anyway.",
  }),
  formality: translationControls.formality.meta({
    description:
      'Passed to engines that take it (DeepL, into the languages it lists with formality); `prefer_*` falls back to the default where there is none. Reported per text in `controls`.',
  }),
  context: translationControls.context.meta({
    description:
      'Text that informs the translation but is not translated (DeepL takes it). Not counted in the character limit. Reported per text in `controls`.',
  }),
});

/** One text of at most `maxTextChars` code points, as the document shows it (the handler checks the length). */
const documentedText = (maxTextChars: number) =>
  codePointString(maxTextChars, { check: false }).min(1, { message: 'text must not be empty' });

/**
 * A body of one text, as the document shows it: `text` of at most `maxTextChars` code points, which
 * the handler enforces (413 TEXT_TOO_LONG, with a limit that depends on the key: translationRequest).
 */
export const documentedTextBody = (maxTextChars: number) =>
  z.strictObject({ text: documentedText(maxTextChars), ...pairFields });

/** translateBody as the document shows it: one text, or many within `maxTextChars` together. */
export const documentedTranslateBody = (maxTextChars: number) =>
  translateBody.extend({
    text: z.union(
      [
        documentedText(maxTextChars).meta({ description: 'One text: the answer is one Translation.' }),
        z
          .array(codePointString(maxTextChars, { check: false }))
          .min(1)
          .max(MAX_TRANSLATE_TEXTS)
          .meta({
            description: `Up to ${MAX_TRANSLATE_TEXTS} texts, at most ${maxTextChars} characters together: the answer is a TranslationBatch, one item per text in order.`,
          }),
      ],
      TEXTS_RULE,
    ),
  });

/** One text's failure within a batch: the error envelope's fields (docs/errors.md). */
const batchItemError = z
  .object({ error: itemError.meta({ description: 'As the error envelope: code, error, message, details.' }) })
  .meta({ id: 'TranslationItemError' });

export const translationBatchSchema = z
  .object({
    translations: z
      .array(z.union([translationSchema, batchItemError]))
      .meta({ description: 'One item per text, in the order sent: its translation or its own error.' }),
    count: z.int().min(0).meta({ description: 'Texts sent.' }),
    failed: z.int().min(0).meta({ description: 'Items that are errors; the others are translations.' }),
  })
  .meta({ id: 'TranslationBatch' });

export type Translation = z.input<typeof translationSchema>;

/** A validated body with canonical language codes; throws the route's 400/413 otherwise. */
export function translationRequest<T extends string | readonly string[]>(
  input: { text: T; source: string; target: string; format?: TextFormat } & Partial<Controls>,
  maxTextChars: number,
) {
  const { glossary, formality, context } = input;
  const request = {
    text: input.text,
    ...(input.format && input.format !== 'text' ? { format: input.format } : {}),
    ...(glossary ? { glossary } : {}),
    ...(formality && formality !== 'default' ? { formality } : {}),
    ...(context ? { context } : {}),
    source: languageCode('source', input.source),
    target: languageCode('target', input.target),
  };
  assertTextLength(typeof request.text === 'string' ? request.text : request.text.join(''), maxTextChars);
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
    ...(result.controls ? { controls: result.controls } : {}),
  };
}

/** The failures of the engine chain through the translator, for one request's texts. */
export const CHAIN_ERRORS = [
  'TEXT_TOO_LONG',
  'TRANSLATION_UNAVAILABLE',
  'TRANSLATOR_UNAVAILABLE',
  'UNSUPPORTED_LANGUAGE',
  'UNSUPPORTED_LANGUAGE_PAIR',
] as const satisfies readonly ErrorCode[];

/** The failures of the translation use case (translateText): the chain's, and a spent budget. */
export const TRANSLATE_ERRORS = [...CHAIN_ERRORS, 'QUOTA_EXCEEDED'] as const satisfies readonly ErrorCode[];

/** The spec's limit for anonymous callers; a request with a valid API key may send up to MAX_TEXT_CHARS. */
export const ANONYMOUS_MAX_TEXT_CHARS = 5000;

export interface TranslateRouteOptions {
  readonly translator: TranslatorClient;
  readonly cache: HotCache;
  /** The limit for this request: MAX_TEXT_CHARS with a valid key, ANONYMOUS_MAX_TEXT_CHARS without. */
  readonly maxTextChars: (req: IncomingMessage) => Promise<number>;
  /** MAX_TEXT_CHARS: the most any request may send (with a key), as the document states it. */
  readonly keyedMaxTextChars: number;
  /** Counts each key's characters and applies its monthly character budget. */
  readonly usage: CharacterUsage;
  /** Which glossary each pair has and its version: part of the hot-cache key, as the translator makes it. */
  readonly glossaries: Pick<GlossaryVersions, 'cacheVersion'>;
}

export function translateRoutes(options: TranslateRouteOptions) {
  return [translateRoute(options), languagesRoute(options.translator), pairsRoute(options.translator)];
}

const translateRoute = (options: TranslateRouteOptions, translate = translateText(options)) =>
  defineRoute({
    method: 'post',
    path: '/api/v1/translate',
    summary: 'Translate text',
    description: `Public. Checks the hot cache, then runs the engine chain. Text longer than 5000 characters is split on sentence boundaries. At most ${ANONYMOUS_MAX_TEXT_CHARS} characters (code points) per request without a key; with \`Authorization: Bearer <key>\` (any role) up to MAX_TEXT_CHARS (${options.keyedMaxTextChars} here, the document's maxLength); longer is 413 TEXT_TOO_LONG. \`source: "auto"\` detects the language.`,
    tags: ['translation'],
    access: 'public',
    request: { body: documentedTranslateBody(options.keyedMaxTextChars) },
    response: {
      status: 200,
      description:
        'The translation of a `text` string; for an array, a TranslationBatch with one item per text (its translation or its own error).',
      schema: z.union([translationSchema, translationBatchSchema]),
    },
    errors: TRANSLATE_ERRORS,
    handler: (context) => translate(context.body, context),
  });

/**
 * The translation use case: the request's text limit, then each text from the hot cache or the
 * translator, its characters counted for the key. POST /api/v1/translate, and the DeepL- and
 * LibreTranslate-compatible routes, call it.
 */
export function translateText(options: TranslateRouteOptions) {
  const { maxTextChars } = options;
  return async (input: z.output<typeof translateBody>, context: RouteContextOf) => {
    const started = performance.now();
    const seconds = () => Math.round(performance.now() - started) / 1000;
    const body = translationRequest(input, await maxTextChars(context.req));
    const { text, ...pair } = body;
    const steps = {
      translator: options.translator,
      usage: options.usage,
      cache: await cacheOfPair(options, pair),
    };
    if (typeof text === 'string') return translateOne(steps, { ...pair, text }, context, seconds);
    return translateMany(steps, { ...pair, texts: text }, context, seconds);
  };
}

export type TranslateText = ReturnType<typeof translateText>;

/** The hot cache as this request reads it: a text's entry under the key the translator stores it. */
type PairCache = { read(text: string): Promise<CachedTranslation | undefined> };
type Steps = Pick<TranslateRouteOptions, 'translator' | 'usage'> & { readonly cache: PairCache };
type Controls = z.output<z.ZodObject<typeof translationControls>>;
type Pair = { readonly source: string; readonly target: string; readonly format?: TextFormat } & Controls;

const MISS: PairCache = { read: () => Promise.resolve(undefined) };

/**
 * The hot cache of the request's pair, keyed as the translator keys it: with the version of the
 * glossary that applies, so a glossary written after a text was cached is not answered with it.
 * Read here only without controls (with them, the translator reads it and says what the engine did
 * with each, `controls`), and not while the glossaries cannot be read (the translator answers).
 */
async function cacheOfPair({ cache, glossaries }: TranslateRouteOptions, pair: Pair): Promise<PairCache> {
  if (pair.glossary || pair.formality || pair.context) return MISS;
  const glossaryVersion = await glossaries.cacheVersion(pair.source, pair.target).catch(() => undefined);
  if (glossaryVersion === undefined) return MISS;
  return { read: (text) => cache.read({ ...pair, text, glossaryVersion }) };
}

/** One text: the hot cache, else the translator (its characters counted for the key, if any). */
async function translateOne(
  { translator, cache, usage }: Steps,
  request: Pair & { readonly text: string },
  context: RouteContextOf,
  seconds: () => number,
): Promise<Translation> {
  const { req, principal } = context;
  // The translator also stores `auto` requests under `auto`, so those can hit here too.
  const hit = await cache.read(request.text);
  if (hit) {
    usage.served(principal, expectedCounts([request.text], []));
    return cachedTranslation(hit, request.target, seconds());
  }
  const result = await usage.translate(principal, req, {
    expected: expectedCounts([], [request.text]),
    // The signal is made here, on a miss only (a hit never needs it).
    run: () => translator.translate(request, requestId(req), context.signal),
    actual: (done) => actualCounts([], [request.text], done && [done]),
  });
  return translatedAnswer(result, seconds());
}

/** Many texts: each from the hot cache, the rest from the translator in one call, in the order sent. */
async function translateMany(
  { translator, cache, usage }: Steps,
  { texts, ...pair }: Pair & { readonly texts: readonly string[] },
  context: RouteContextOf,
  seconds: () => number,
): Promise<z.input<typeof translationBatchSchema>> {
  const { req, principal } = context;
  const hits = await Promise.all(texts.map((text) => cache.read(text)));
  const missed = texts.filter((_, index) => !hits[index]);
  const cached = texts.filter((_, index) => hits[index]);
  const answer: TranslateBatchAnswer = await usage.translate(principal, req, {
    expected: expectedCounts(cached, missed),
    run: () =>
      missed.length > 0
        ? translator.translateBatch({ ...pair, texts: missed }, requestId(req), context.signal)
        : Promise.resolve({ items: [], failed: 0 }),
    actual: (done) => actualCounts(cached, missed, done?.items),
  });
  if (answer.items.length !== missed.length) {
    throw new AppError(
      'TRANSLATOR_UNAVAILABLE',
      `the translator service answered ${answer.items.length} items for ${missed.length} texts`,
    );
  }
  const fromTranslator = answer.items.values();
  const translations = hits.map((hit) => {
    if (hit) return cachedTranslation(hit, pair.target, seconds());
    const item = fromTranslator.next().value as TranslateBatchAnswer['items'][number];
    return 'error' in item ? { error: item.error } : translatedAnswer(item, seconds());
  });
  return { translations, count: texts.length, failed: answer.failed };
}

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
