import { requestId } from '@tp/runtime';
import type { ServedPair } from '@tp/service-contracts';
import { z } from 'zod';

import { deepLLanguages } from '../compat/language-codes.js';
import { defineRoute } from '../http/route.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import { DEEPL_TAGS, DEEPL_WIRE, authKeyField } from './deepl-wire.js';

const typeField = z
  .enum(['source', 'target'])
  .optional()
  .meta({ description: 'Which list (default source).' });

const languageSchema = z
  .object({
    language: z.string().meta({ description: 'DeepL’s code (ours in upper case where DeepL has none).' }),
    name: z.string(),
    supports_formality: z.boolean().optional().meta({
      description:
        'Targets only: true where DeepL serves a pair into it here (it applies `formality`); the other engines ignore it.',
    }),
  })
  .meta({ id: 'DeepLLanguage' });

/** The languages in DeepL's codes that some pair served now reads (source) or writes (target). */
export function servedDeepLLanguages(pairs: readonly ServedPair[], type: 'source' | 'target') {
  const served = new Set(pairs.map((pair) => pair[type]));
  const byDeepL = new Set(pairs.filter((pair) => pair.engines.includes('deepl')).map((pair) => pair.target));
  return deepLLanguages(type)
    .filter(({ ours }) => served.has(ours))
    .map(({ code, name, ours, formality }) =>
      type === 'source'
        ? { language: code, name }
        : { language: code, name, supports_formality: formality && byDeepL.has(ours) },
    );
}

const DESCRIPTION =
  'DeepL-compatible. The languages some engine or pivot route serves now (GET /api/v1/translate/pairs), in DeepL’s codes: variants DeepL names (EN-GB, EN-US, PT-BR, PT-PT, ES-419) are listed when the language is, and are written as the language itself; languages DeepL has no code for are listed under ours in upper case (CA, GL).';

/** GET and POST /v2/languages. */
export function deeplLanguagesRoutes(translator: TranslatorClient) {
  const response = {
    status: 200 as const,
    description: 'The languages.',
    schema: z.array(languageSchema),
  };
  const answer = async (
    type: 'source' | 'target' | undefined,
    req: Parameters<typeof requestId>[0],
    signal: AbortSignal,
  ) => servedDeepLLanguages(await translator.pairs({}, requestId(req), signal), type ?? 'source');
  return [
    defineRoute({
      method: 'get',
      path: '/v2/languages',
      summary: 'DeepL: languages',
      description: DESCRIPTION,
      tags: DEEPL_TAGS,
      access: 'client',
      wire: DEEPL_WIRE,
      request: { query: z.strictObject({ type: typeField }) },
      response,
      errors: ['TRANSLATOR_UNAVAILABLE'],
      handler: ({ query, req, signal }) => answer(query.type, req, signal),
    }),
    defineRoute({
      method: 'post',
      path: '/v2/languages',
      summary: 'DeepL: languages (form body)',
      description: DESCRIPTION,
      tags: DEEPL_TAGS,
      access: 'client',
      wire: DEEPL_WIRE,
      request: { body: z.strictObject({ type: typeField, ...authKeyField }) },
      response,
      errors: ['TRANSLATOR_UNAVAILABLE'],
      handler: ({ body, req, signal }) => answer(body.type, req, signal),
    }),
  ];
}
