import type { IncomingMessage } from 'node:http';

import { requestId } from '@tp/runtime';
import type { ServedPair } from '@tp/service-contracts';
import { LANGUAGES } from '@tp/translation';
import { z } from 'zod';

import { libreCode } from '../compat/language-codes.js';
import { detectLanguages } from '../detect/detect.routes.js';
import { defineRoute } from '../http/route.js';
import type { TranslateText } from '../translate/translate.routes.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import { libreTranslateRoute } from './libre-translate.routes.js';
import { LIBRE_TAGS, LIBRE_WIRE, apiKeyFields } from './libre-wire.js';

export interface LibreRouteOptions {
  readonly translator: TranslatorClient;
  /** POST /api/v1/translate's use case. */
  readonly translate: TranslateText;
  /** The text limit of a request, as for POST /api/v1/translate (more with a valid key). */
  readonly maxTextChars: (req: IncomingMessage) => Promise<number>;
  /** The limit without a key, which the front-end settings announce. */
  readonly anonymousMaxTextChars: number;
}

const languageSchema = z
  .object({
    code: z.string().meta({ description: 'LibreTranslate’s code (`zh-Hans`, `zh-Hant`; ours otherwise).' }),
    name: z.string(),
    targets: z.array(z.string()).meta({ description: 'What it translates into now.' }),
  })
  .meta({ id: 'LibreTranslateLanguage' });

/** Every language of a served pair, in the built-in list's order, with the targets it has now. */
export function libreLanguages(pairs: readonly ServedPair[]) {
  const targets = new Map<string, Set<string>>();
  for (const { source, target } of pairs) {
    for (const code of [source, target]) if (!targets.has(code)) targets.set(code, new Set());
    targets.get(source)?.add(target);
  }
  return LANGUAGES.filter(({ code }) => targets.has(code)).map(({ code, name }) => ({
    code: libreCode(code),
    name,
    targets: [...(targets.get(code) ?? [])].map(libreCode),
  }));
}

/** The LibreTranslate-compatible API: thin adapters over the platform's own use cases. */
export function libreRoutes(options: LibreRouteOptions) {
  return [
    libreTranslateRoute(options.translate),
    languagesRoute(options.translator),
    detectRoute(options),
    settingsRoute(options.anonymousMaxTextChars),
  ];
}

const languagesRoute = (translator: TranslatorClient) =>
  defineRoute({
    method: 'get',
    path: '/languages',
    summary: 'LibreTranslate: languages',
    description:
      'LibreTranslate-compatible. Public. Every language of a pair some engine or pivot route serves now (GET /api/v1/translate/pairs), with its targets.',
    tags: LIBRE_TAGS,
    access: 'public',
    wire: LIBRE_WIRE,
    response: { status: 200, description: 'The languages.', schema: z.array(languageSchema) },
    errors: ['TRANSLATOR_UNAVAILABLE'],
    handler: async ({ req, signal }) => libreLanguages(await translator.pairs({}, requestId(req), signal)),
  });

const detectRoute = (options: LibreRouteOptions) =>
  defineRoute({
    method: 'post',
    path: '/detect',
    summary: 'LibreTranslate: detect the language of a text',
    description: `LibreTranslate-compatible. Public, with the limits and the detector of POST /api/v1/detect: at most 3 candidates, best first, confidence in percent; an empty list when the text has no letters.`,
    tags: LIBRE_TAGS,
    access: 'public',
    wire: LIBRE_WIRE,
    request: { body: z.strictObject({ q: z.string().min(1), ...apiKeyFields }) },
    response: {
      status: 200,
      description: 'The candidates.',
      schema: z.array(z.object({ language: z.string(), confidence: z.number() })),
    },
    errors: ['TEXT_TOO_LONG', 'TRANSLATOR_UNAVAILABLE'],
    handler: async ({ body, req, signal }) => {
      const [detection] = await detectLanguages(options, body.q, req, signal);
      return (detection?.candidates ?? []).map(({ language, confidence }) => ({
        language: libreCode(language),
        confidence: Math.round(confidence * 1000) / 10,
      }));
    },
  });

const settingsRoute = (charLimit: number) =>
  defineRoute({
    method: 'get',
    path: '/frontend/settings',
    summary: 'LibreTranslate: front-end settings',
    description:
      'LibreTranslate-compatible. Public. What LibreTranslate’s web front-end and browser extensions read: keys are optional (`keyRequired: false`), the character limit without a key, no file translation and no suggestions.',
    tags: LIBRE_TAGS,
    access: 'public',
    wire: LIBRE_WIRE,
    response: {
      status: 200,
      description: 'The settings.',
      schema: z.object({
        apiKeys: z.boolean(),
        keyRequired: z.boolean(),
        charLimit: z.int(),
        frontendTimeout: z.int(),
        suggestions: z.boolean(),
        filesTranslation: z.boolean(),
        supportedFilesFormat: z.array(z.string()),
        language: z.object({
          source: z.object({ code: z.string(), name: z.string() }),
          target: z.object({ code: z.string(), name: z.string() }),
        }),
      }),
    },
    handler: () => ({
      apiKeys: true,
      keyRequired: false,
      charLimit,
      frontendTimeout: 500,
      suggestions: false,
      filesTranslation: false,
      supportedFilesFormat: [],
      language: {
        source: { code: 'auto', name: 'Auto Detect' },
        target: { code: 'en', name: 'English' },
      },
    }),
  });
