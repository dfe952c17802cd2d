import { AppError, codePointString, requestId } from '@tp/runtime';
import { parseEntries } from '@tp/translation';
import { z } from 'zod';

import type { GlossaryWrites } from '../admin/translate/glossaries/glossaries.routes.js';
import type { GlossarySummary } from '../admin/translate/glossaries/glossary.store.js';
import { deepLSourceCode } from '../compat/language-codes.js';
import { defineRoute } from '../http/route.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import { DEEPL_TAGS, DEEPL_WIRE, authKeyField, deeplLanguage } from './deepl-wire.js';

const PATH = '/v2/glossaries';

const glossaryInfo = z
  .object({
    glossary_id: z.uuid(),
    name: z.string(),
    ready: z.boolean().meta({ description: 'Always true: a glossary applies from the next translation.' }),
    source_lang: z.string(),
    target_lang: z.string(),
    creation_time: z.iso.datetime(),
    entry_count: z.int(),
  })
  .meta({ id: 'DeepLGlossary' });

/** DeepL names a glossary's languages by their lower-case source codes (`en`, `zh`). */
const glossaryCode = (ours: string) => deepLSourceCode(ours).toLowerCase();

/** One of the platform's glossaries as DeepL describes one. */
export function deeplGlossary(glossary: GlossarySummary): z.input<typeof glossaryInfo> {
  return {
    glossary_id: glossary.id,
    name: glossary.name,
    ready: true,
    source_lang: glossaryCode(glossary.source_lang),
    target_lang: glossaryCode(glossary.target_lang),
    creation_time: glossary.created_at,
    entry_count: glossary.entry_count,
  };
}

const createBody = z.strictObject({
  name: codePointString(200).trim().min(1),
  source_lang: deeplLanguage('source'),
  target_lang: deeplLanguage('target'),
  entries: z.string().max(1_000_000),
  entries_format: z.enum(['tsv', 'csv']).default('tsv'),
  ...authKeyField,
});

const idParams = z.strictObject({ glossary_id: z.uuid() });

const APPLIES =
  'DeepL-compatible, over the platform’s glossaries (one per language pair, applied on every engine to every translation of the pair: see the admin glossary routes).';

/** The /v2 glossary routes: reads with any key, writes with an admin key (as the admin API). */
export function deeplGlossaryRoutes(glossaries: GlossaryWrites, translator: TranslatorClient) {
  return [
    pairsRoute(translator),
    createRoute(glossaries),
    ...readRoutes(glossaries),
    deleteRoute(glossaries),
  ];
}

const createRoute = (glossaries: GlossaryWrites) =>
  defineRoute({
    method: 'post',
    path: PATH,
    summary: 'DeepL: create a glossary',
    description: `${APPLIES} Needs an admin key. \`source_lang\`/\`target_lang\` in DeepL’s codes; a second glossary for a pair is 409 CONFLICT (answered 400).`,
    tags: DEEPL_TAGS,
    access: 'admin',
    wire: DEEPL_WIRE,
    request: { body: createBody },
    response: { status: 201, description: 'The new glossary.', schema: glossaryInfo },
    errors: ['CONFLICT', 'GLOSSARY_ENTRIES_INVALID', 'GLOSSARY_TOO_LARGE'],
    handler: async ({ body, req }) =>
      deeplGlossary(
        await glossaries.create(
          {
            name: body.name,
            sourceLang: body.source_lang,
            targetLang: body.target_lang,
            entries: parseEntries(body.entries, body.entries_format),
          },
          req,
        ),
      ),
  });

const readRoutes = (glossaries: GlossaryWrites) => [
  defineRoute({
    method: 'get',
    path: PATH,
    summary: 'DeepL: list glossaries',
    description: APPLIES,
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    response: {
      status: 200,
      description: 'Every glossary.',
      schema: z.object({ glossaries: z.array(glossaryInfo) }),
    },
    handler: async () => ({ glossaries: (await glossaries.list()).map(deeplGlossary) }),
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/{glossary_id}`,
    summary: 'DeepL: one glossary',
    description: APPLIES,
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    request: { params: idParams },
    response: { status: 200, description: 'The glossary.', schema: glossaryInfo },
    errors: ['NOT_FOUND'],
    handler: async ({ params }) => deeplGlossary(await glossaries.get(params.glossary_id)),
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/{glossary_id}/entries`,
    summary: 'DeepL: a glossary’s entries (TSV)',
    description: `${APPLIES} One \`source<TAB>target\` a line.`,
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    request: { params: idParams },
    response: {
      status: 200,
      description: 'The entries.',
      contentType: 'text/tab-separated-values',
      schema: z.string(),
    },
    errors: ['NOT_FOUND'],
    handler: async ({ params, res }) => {
      const { entries } = await glossaries.get(params.glossary_id);
      const tsv = entries.map(({ source, target }) => `${source}\t${target}`).join('\n');
      res.status(200).type('text/tab-separated-values').send(tsv);
      return tsv;
    },
  }),
];

const deleteRoute = (glossaries: GlossaryWrites) =>
  defineRoute({
    method: 'delete',
    path: `${PATH}/{glossary_id}`,
    summary: 'DeepL: delete a glossary',
    description: `${APPLIES} Needs an admin key.`,
    tags: DEEPL_TAGS,
    access: 'admin',
    wire: DEEPL_WIRE,
    request: { params: idParams },
    response: { status: 204, description: 'Deleted.', schema: z.undefined() },
    errors: ['NOT_FOUND'],
    handler: async ({ params, req }) => {
      await glossaries.remove(params.glossary_id, req);
      return undefined;
    },
  });

/** GET /v2/glossary-language-pairs: glossaries apply on every engine, so every pair served now. */
const pairsRoute = (translator: TranslatorClient) =>
  defineRoute({
    method: 'get',
    path: '/v2/glossary-language-pairs',
    summary: 'DeepL: language pairs glossaries can have',
    description:
      'DeepL-compatible. Every pair served now (GET /api/v1/translate/pairs) in DeepL’s lower-case glossary codes: glossaries apply on every engine.',
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    response: {
      status: 200,
      description: 'The pairs.',
      schema: z.object({
        supported_languages: z.array(z.object({ source_lang: z.string(), target_lang: z.string() })),
      }),
    },
    errors: ['TRANSLATOR_UNAVAILABLE'],
    handler: async ({ req, signal }) => {
      const pairs = await translator.pairs({}, requestId(req), signal);
      const seen = new Set<string>();
      const supported = [];
      for (const pair of pairs) {
        const [source_lang, target_lang] = [glossaryCode(pair.source), glossaryCode(pair.target)];
        const key = `${source_lang}>${target_lang}`;
        if (source_lang === target_lang || seen.has(key)) continue;
        seen.add(key);
        supported.push({ source_lang, target_lang });
      }
      return { supported_languages: supported };
    },
  });

/** Refuses a `glossary_id` that is not the glossary of the pair translated (the platform applies that one). */
export async function checkGlossaryId(
  glossaries: GlossaryWrites,
  id: string,
  pair: { source: string; target: string },
): Promise<void> {
  const found = await glossaries.get(id);
  if (found.source_lang !== pair.source || found.target_lang !== pair.target) {
    throw new AppError(
      'BAD_REQUEST',
      `glossary ${id} is for ${found.source_lang} -> ${found.target_lang}, not ${pair.source} -> ${pair.target}`,
    );
  }
}
