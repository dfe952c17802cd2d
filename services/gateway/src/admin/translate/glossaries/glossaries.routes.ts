import {
  GLOSSARY_LIMITS,
  checkEntries,
  normaliseLanguageTag,
  parseEntries,
  type GlossaryEntry,
} from '@tp/translation';
import type { GlossaryVersions } from '@tp/db';
import { codePointString, requestId } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../../http/route.js';
import type { GlossaryRetranslation } from './glossary-retranslation.js';
import type {
  GlossaryChange,
  GlossaryStore,
  GlossarySummary,
  GlossaryView,
  NewGlossary,
} from './glossary.store.js';

const TAGS = ['admin: translation'];
const PATH = '/api/admin/translate/glossaries';

const entrySchema = z.object({ source: z.string(), target: z.string() });

const summarySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    source_lang: z.string(),
    target_lang: z.string(),
    entry_count: z.int(),
    version: z.int().meta({
      description:
        'Changes on every write and never repeats for the pair; part of the translator’s cache key, so an edit applies to the next translation.',
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'GlossarySummary' });

const glossarySchema = summarySchema.extend({ entries: z.array(entrySchema) }).meta({ id: 'Glossary' });

const language = z.string().transform((tag, ctx) => {
  const code = normaliseLanguageTag(tag);
  if (code) return code;
  ctx.addIssue({
    code: 'custom',
    message: `unsupported language ${JSON.stringify(tag)} (see GET /api/v1/translate/languages)`,
  });
  return z.NEVER;
});

// The terms' limits are checked with the entries (400 GLOSSARY_ENTRIES_INVALID); the document states them.
const term = () => codePointString(GLOSSARY_LIMITS.maxTermLength, { check: false });
const entriesField = z.union([z.string(), z.array(z.strictObject({ source: term(), target: term() }))]).meta({
  description: `Either a list of \`{source, target}\`, or text in \`entries_format\`: CSV (\`source,target\` a line, RFC 4180 quoting) or TSV, as DeepL's glossary API takes them. Terms are trimmed; no empty term, no source term twice, no tab, line break or control character in a term; at most ${GLOSSARY_LIMITS.maxEntries} entries, ${GLOSSARY_LIMITS.maxBytes / 1024} KiB of terms and ${GLOSSARY_LIMITS.maxTermLength} characters (code points) a term.`,
});
const entriesFormat = z
  .enum(['csv', 'tsv'])
  .meta({ description: 'How `entries` text is written (default csv).' });

const createBody = z.strictObject({
  name: codePointString(200).trim().min(1),
  source_lang: language,
  target_lang: language,
  entries: entriesField,
  entries_format: entriesFormat.optional(),
});

const updateBody = z
  .strictObject({
    name: codePointString(200).trim().min(1).optional(),
    entries: entriesField.optional(),
    entries_format: entriesFormat.optional(),
  })
  .refine((body) => body.name !== undefined || body.entries !== undefined, {
    error: 'must set name, entries or both',
  });

const idParams = z.strictObject({ id: z.uuid() });

/** Entries from a body: a list is checked as it is; text is parsed in its format first. */
export function readEntries(
  entries: string | readonly GlossaryEntry[],
  format: 'csv' | 'tsv' = 'csv',
): GlossaryEntry[] {
  return typeof entries === 'string' ? parseEntries(entries, format) : checkEntries(entries);
}

const APPLIES =
  'Applies on every engine: source terms are kept out of the engine and replaced by their target term (whole words, case-sensitive); DeepL gets the glossary through its own glossary API. The translator sees a change within its GLOSSARY_REFRESH_MS (1 s by default), and translations cached before it are not served again. Stored content of the pair whose source text contains a term the write added, removed or changed is requested again (bounded per write, throttled per field; see docs/decisions.md).';

/** After a write: the pair's stored content affected by the changed terms is requested again. */
type AfterWrite = (
  before: GlossaryView | undefined,
  after: GlossaryView | undefined,
  req: Parameters<typeof requestId>[0],
) => Promise<void>;

function afterWrite(retranslation: GlossaryRetranslation | undefined): AfterWrite {
  return async (before, after, req) => {
    const pair = after ?? before;
    if (!retranslation || !pair) return;
    await retranslation.afterEdit(
      {
        sourceLang: pair.source_lang,
        targetLang: pair.target_lang,
        state: after ? String(after.version) : `deleted-${pair.version}`,
        before: before?.entries ?? [],
        after: after?.entries ?? [],
      },
      requestId(req),
    );
  };
}

/**
 * The glossary use cases, each write followed by the request-again of the stored content it touches:
 * the admin API's and the DeepL-compatible /v2/glossaries.
 */
export function glossaryWrites(
  store: GlossaryStore,
  retranslation?: GlossaryRetranslation,
  /** This process's view of the glossaries (the hot-cache key's version), made out of date by a write. */
  versions?: Pick<GlossaryVersions, 'expire'>,
) {
  const written = afterWrite(retranslation);
  const requestAgain: AfterWrite = (before, after, req) => {
    versions?.expire();
    return written(before, after, req);
  };
  return {
    list: () => store.list(),
    get: (id: string) => store.get(id),
    async create(input: NewGlossary, req: RequestOf): Promise<GlossaryView> {
      const created = await store.create(input);
      await requestAgain(undefined, created, req);
      return created;
    },
    async update(id: string, change: GlossaryChange, req: RequestOf): Promise<GlossaryView> {
      const before = await store.get(id);
      const updated = await store.update(id, change);
      await requestAgain(before, updated, req);
      return updated;
    },
    async remove(id: string, req: RequestOf): Promise<GlossarySummary> {
      const before = await store.get(id);
      const removed = await store.remove(id);
      await requestAgain(before, undefined, req);
      return removed;
    },
  };
}

export type GlossaryWrites = ReturnType<typeof glossaryWrites>;
type RequestOf = Parameters<typeof requestId>[0];

/** Admin management of glossaries: one term list per language pair. */
export function glossaryRoutes(glossaries: GlossaryWrites) {
  return [
    listGlossaryRoute(glossaries),
    createGlossaryRoute(glossaries),
    readGlossaryRoute(glossaries),
    updateGlossaryRoute(glossaries),
    deleteGlossaryRoute(glossaries),
  ];
}

/** GET: every glossary, without entries. */
function listGlossaryRoute(store: GlossaryWrites) {
  return defineRoute({
    method: 'get',
    path: PATH,
    summary: 'List glossaries',
    description: 'Every glossary without its entries, by language pair.',
    tags: TAGS,
    access: 'admin',
    response: {
      status: 200,
      description: 'The glossaries.',
      schema: z.object({ glossaries: z.array(summarySchema) }),
    },
    handler: async () => ({ glossaries: await store.list() }),
  });
}

/** POST: a new glossary for a pair. */
function createGlossaryRoute(glossaries: GlossaryWrites) {
  return defineRoute({
    method: 'post',
    path: PATH,
    summary: 'Create the glossary of a language pair',
    description: `One glossary per pair: a second one is 409 CONFLICT. ${APPLIES}`,
    tags: TAGS,
    access: 'admin',
    request: { body: createBody },
    response: { status: 201, description: 'The new glossary.', schema: glossarySchema },
    errors: ['CONFLICT', 'GLOSSARY_ENTRIES_INVALID', 'GLOSSARY_TOO_LARGE'],
    handler: ({ body, req }) =>
      glossaries.create(
        {
          name: body.name,
          sourceLang: body.source_lang,
          targetLang: body.target_lang,
          entries: readEntries(body.entries, body.entries_format),
        },
        req,
      ),
  });
}

/** GET by id: one glossary with its entries. */
function readGlossaryRoute(store: GlossaryWrites) {
  return defineRoute({
    method: 'get',
    path: `${PATH}/{id}`,
    summary: 'Read a glossary with its entries',
    tags: TAGS,
    access: 'admin',
    request: { params: idParams },
    response: { status: 200, description: 'The glossary.', schema: glossarySchema },
    errors: ['NOT_FOUND'],
    handler: ({ params }) => store.get(params.id),
  });
}

/** PUT: rename, or replace the entries. */
function updateGlossaryRoute(glossaries: GlossaryWrites) {
  return defineRoute({
    method: 'put',
    path: `${PATH}/{id}`,
    summary: 'Rename a glossary or replace its entries',
    description: `\`entries\` replaces the whole list (CSV import included). Every update gets a new \`version\`. ${APPLIES}`,
    tags: TAGS,
    access: 'admin',
    request: { params: idParams, body: updateBody },
    response: { status: 200, description: 'The updated glossary.', schema: glossarySchema },
    errors: ['NOT_FOUND', 'GLOSSARY_ENTRIES_INVALID', 'GLOSSARY_TOO_LARGE'],
    handler: ({ params, body, req }) =>
      glossaries.update(
        params.id,
        {
          name: body.name,
          entries: body.entries === undefined ? undefined : readEntries(body.entries, body.entries_format),
        },
        req,
      ),
  });
}

/** DELETE by id. */
function deleteGlossaryRoute(glossaries: GlossaryWrites) {
  return defineRoute({
    method: 'delete',
    path: `${PATH}/{id}`,
    summary: 'Delete a glossary',
    description:
      'Translations of the pair no longer apply any terms, from the next one on; stored content that contains one of its source terms is requested again (bounded, throttled). Its copies at DeepL (every version) are deleted there by the translator within its GLOSSARY_DELETIONS_SWEEP_MS (30 s by default), tried again until DeepL confirms.',
    tags: TAGS,
    access: 'admin',
    request: { params: idParams },
    response: { status: 200, description: 'The deleted glossary.', schema: summarySchema },
    errors: ['NOT_FOUND'],
    handler: ({ params, req }) => glossaries.remove(params.id, req),
  });
}
