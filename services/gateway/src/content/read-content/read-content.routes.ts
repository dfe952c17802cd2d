import { entityId, entitySegment, isEntityId } from '@tp/pipeline';
import { AppError, requestId, requestLog } from '@tp/runtime';
import type { Request, Response } from 'express';
import { z } from 'zod';

import type { Principal } from '../../auth/api-key.store.js';
import { assertInScope } from '../../auth/module-scope.js';
import { defineRoute } from '../../http/route.js';
import { languageTagSchema } from '../language.js';
import { requestedLanguages } from './language-chain.js';
import type { CachedContent } from './content-read-cache.js';
import type { ContentView } from './merge-content.js';
import type { ReadContent, ReadResult } from './read-content.js';

/** Most ids one list read may ask for. */
export const MAX_READ_IDS = 100;

const fieldMetaSchema = z
  .object({
    language: z.string().meta({ description: 'The language of the translation served.' }),
    origin: z.enum(['machine', 'human']),
    engine: z
      .string()
      .nullable()
      .meta({ description: 'The engine of a machine translation; null for a human one.' }),
    stale: z.literal(true).optional().meta({
      description:
        'A human translation made from an older source text (its machine replacement is requested unless the language is human-only).',
    }),
    truncated: z.literal(true).optional().meta({
      description:
        'Only the start of the text was translated (MyMemory cuts at 500 characters); a whole translation is requested again, throttled.',
    }),
    fallback: z.literal(true).optional().meta({
      description:
        "A weaker engine's translation: an engine earlier in the chain that serves the pair failed, so a later one answered. It is requested again, throttled; the translator asks the stronger engine as soon as it is healthy, and its result replaces this one.",
    }),
  })
  .meta({ id: 'ContentFieldMeta' });

const contentViewSchema = z
  .object({
    type: z.string(),
    id: z.string(),
    module: z.string().meta({ description: 'The module that owns the type.' }),
    source_lang: z.string().meta({ description: 'Source language of the latest report.' }),
    source_version: z.int().nonnegative().meta({ description: 'Highest source version of the fields.' }),
    language: z.string().meta({
      description:
        'The language asked for by x-language, as a code of the language list (`zh-cn` -> `zh-CN`, `en-US` -> `en`); the source language without the header.',
    }),
    fields: z.record(z.string(), z.string()).meta({
      description:
        'Field -> text: the translation into `language` made from the current source text, or the source text.',
    }),
    untranslated: z.array(z.string()).meta({
      description:
        'Fields served in their source text because no translation of their current text exists yet; their translation has been requested.',
    }),
    meta: z.record(z.string(), fieldMetaSchema).optional().meta({
      description:
        'Only with `?meta=true`: per field served from a translation, where it comes from. Fields served in their source text are not listed.',
    }),
  })
  .meta({ id: 'ContentView' });

/** The `meta` query flag: answers carry a `meta` block only when it is `true`. */
const metaFlag = z.enum(['true', 'false']).optional().meta({
  description:
    '`true` adds a `meta` block keyed by field: the language, origin (`machine` or `human`), engine, and `stale`/`truncated`/`fallback` where they apply. Without it the answer is as before.',
});

const headers = z.object({
  'x-language': z
    .union([z.literal(''), languageTagSchema])
    .optional()
    .meta({
      description:
        'Language to read in (`zh-CN`, `zh-cn`, `en-US`, `zh_Hant_TW`); without it, the source text. Case and `_` do not matter; subtags are dropped from the end until a code of GET /api/v1/translate/languages matches (`en-US` -> `en`), never changing script (`zh-TW` does not fall back to `zh-CN`). A malformed tag is 400 VALIDATION_FAILED; a well-formed one matching no code is 400 UNSUPPORTED_LANGUAGE. Empty means absent.',
    }),
});

const responseHeaders = z.object({
  'content-language': z.string().meta({
    description:
      'Languages of the texts in the answer: the one asked for, plus the source language when some fields are untranslated (`en, zh-CN`).',
  }),
});

const metaQuery = z.object({ meta: metaFlag });

const idsQuery = z.strictObject({
  meta: metaFlag,
  ids: z
    .string()
    .superRefine((value, ctx) => {
      const ids = value.split(',');
      if (ids.length > MAX_READ_IDS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_READ_IDS} ids` });
      if (ids.some((id) => !isEntityId(id))) {
        ctx.addIssue({
          code: 'custom',
          message: 'each id must be 1-200 characters, without control characters',
        });
      }
    })
    .meta({
      description: `Comma-separated entity ids, 1 to ${MAX_READ_IDS} (an id containing a comma must be read on its own).`,
    }),
});

const errors = ['ENTITY_NOT_FOUND', 'UNSUPPORTED_LANGUAGE', 'DEPENDENCY_UNAVAILABLE'] as const;

/** The chain for the request's x-language, or undefined for the source (an empty header is none). */
function chainOf(tag: string | undefined): string[] | undefined {
  return tag ? requestedLanguages(tag) : undefined;
}

/** Postgres failing is the client's 503; our own refusals pass as they are. */
async function readOrUnavailable(req: Request, read: () => Promise<ReadResult>): Promise<ReadResult> {
  return read().catch((err: unknown) => {
    if (err instanceof AppError) throw err;
    requestLog(req).error({ err }, 'could not read content');
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot read content right now; retry later');
  });
}

/**
 * Who reads: the request's correlation and logger, and the modules it may see: those of a scoped key,
 * or the one its path names (checked against the key's scope by the caller).
 */
function readerOf(req: Request, principal: Principal | undefined, module?: string) {
  const modules = module === undefined ? principal?.modules : [module];
  return {
    correlationId: requestId(req),
    log: () => requestLog(req),
    ...(modules ? { modules } : {}),
  };
}

/** The Content-Language of an answer: the languages of every text in it, those asked first. */
export function contentLanguage(
  found: readonly CachedContent[],
  chain: readonly string[] = [],
): string | undefined {
  const served = new Set(found.flatMap((entry) => entry.languages));
  const languages = [
    ...chain.filter((l) => served.has(l)),
    ...[...served].filter((l) => !chain.includes(l)).sort(),
  ];
  return languages.length > 0 ? languages.join(', ') : undefined;
}

function setContentLanguage(res: Response, found: readonly CachedContent[], chain?: readonly string[]) {
  const languages = contentLanguage(found, chain);
  if (languages !== undefined) res.setHeader('Content-Language', languages);
}

/**
 * The view as the answer's schema types it, with its meta only when asked. Its fields and lists are
 * answered as they are (serialised, never changed), not copied.
 */
const viewBody = ({ meta, ...view }: ContentView, withMeta: boolean) => ({
  ...view,
  untranslated: view.untranslated as string[],
  ...(withMeta ? { meta: meta ?? {} } : {}),
});

/**
 * GET /api/v1/content/{type}/{id}, the same with the module (the write path), GET
 * /api/v1/vendors/{vendor_id} and GET /api/v1/content/{type}?ids=.
 */
export function readContentRoutes(reader: ReadContent) {
  return [
    readEntityRoute(reader),
    readModuleEntityRoute(reader),
    readVendorRoute(reader),
    readManyRoute(reader),
  ];
}

/** What a route that answers one entity shares. */
const single = {
  tags: ['content'],
  access: 'client',
  response: {
    status: 200,
    description: 'The entity with its fields merged in the language asked.',
    schema: contentViewSchema,
    headers: responseHeaders,
  },
  errors,
} as const;

/** The paths of the single reads. */
const READ_ENTITY_PATH = '/api/v1/content/{type}/{id}';
const READ_VENDOR_PATH = '/api/v1/vendors/{vendor_id}';

const readEntityRoute = (reader: ReadContent) =>
  defineRoute({
    ...single,
    method: 'get',
    path: READ_ENTITY_PATH,
    summary: 'Read one entity, translated by x-language',
    description:
      'Any API key. The source fields of the entity, each replaced by its stored translation into the x-language (or the first fallback of it that has one). A machine translation counts only if it was made from the current source text; a human one (PUT .../translations/{lang}) is served even when made from an older text, flagged `stale` in the meta. Other fields keep the source text, are listed in `untranslated`, and their translation is requested, as is a field served truncated or from a fallback engine (throttled). `?meta=true` adds where each translated field comes from. Answers are cached briefly and dropped when the entity changes. A key scoped to modules reads only their entities: an entity of another module is 404 ENTITY_NOT_FOUND, exactly as one that does not exist.',
    request: { params: z.strictObject({ type: entitySegment, id: entityId }), query: metaQuery, headers },
    handler: ({ params, query, headers: h, req, res, principal }) =>
      readOne(reader, params, h['x-language'], query.meta === 'true', { req, res, principal }),
  });

/** The path a business system writes to also reads, with the module checked. */
const readModuleEntityRoute = (reader: ReadContent) =>
  defineRoute({
    ...single,
    errors: [...errors, 'MODULE_NOT_ALLOWED'],
    method: 'get',
    path: '/api/v1/content/{module}/{type}/{id}',
    summary: 'Read one entity of a module, translated by x-language',
    description:
      'Any API key. The same answer as GET /api/v1/content/{type}/{id}, on the path the entity is reported to, with the module checked: an entity whose type belongs to another module is 404 ENTITY_NOT_FOUND, exactly as one that does not exist. A key scoped to modules gets 403 MODULE_NOT_ALLOWED for any other module, as on POST.',
    request: {
      params: z.strictObject({ module: entitySegment, type: entitySegment, id: entityId }),
      query: metaQuery,
      headers,
    },
    handler: ({ params, query, headers: h, req, res, principal }) => {
      assertInScope(principal, params.module);
      return readOne(reader, params, h['x-language'], query.meta === 'true', { req, res, principal });
    },
  });

const readVendorRoute = (reader: ReadContent) =>
  defineRoute({
    ...single,
    method: 'get',
    path: READ_VENDOR_PATH,
    summary: 'Read one vendor, translated by x-language',
    description:
      'Any API key. The same as GET /api/v1/content/vendor/{vendor_id}: a vendor is content of type `vendor`.',
    request: { params: z.strictObject({ vendor_id: entityId }), query: metaQuery, headers },
    handler: ({ params, query, headers: h, req, res, principal }) =>
      readOne(reader, { type: 'vendor', id: params.vendor_id }, h['x-language'], query.meta === 'true', {
        req,
        res,
        principal,
      }),
  });

/** One entity (of `module` when named) in the language of `tag`, or 404 ENTITY_NOT_FOUND. */
async function readOne(
  reader: ReadContent,
  { module, type, id }: { module?: string; type: string; id: string },
  tag: string | undefined,
  withMeta: boolean,
  { req, res, principal }: { req: Request; res: Response; principal: Principal | undefined },
) {
  const chain = chainOf(tag);
  const result = await readOrUnavailable(req, () =>
    reader.read({ type, ids: [id], chain, ...readerOf(req, principal, module) }),
  );
  const entry = result.found[0];
  if (!entry) {
    const what = module === undefined ? type : `${module}/${type}`;
    throw new AppError('ENTITY_NOT_FOUND', `no content is stored for ${what} ${JSON.stringify(id)}`, {
      ...(module === undefined ? {} : { module }),
      type,
      id,
    });
  }
  setContentLanguage(res, result.found, chain);
  return viewBody(entry.view, withMeta);
}

const readManyRoute = (reader: ReadContent) =>
  defineRoute({
    method: 'get',
    path: '/api/v1/content/{type}',
    summary: 'Read many entities of one type, translated by x-language',
    description: `Any API key. Like GET /api/v1/content/{type}/{id} for up to ${MAX_READ_IDS} ids at once, at the cost of one read: the entities found, in the order asked (duplicates once), and the ids with no stored content in \`missing\`. For a key scoped to modules, ids of other modules' entities are in \`missing\` too, as if absent.`,
    tags: ['content'],
    access: 'client',
    request: { params: z.strictObject({ type: entitySegment }), query: idsQuery, headers },
    response: {
      status: 200,
      description: 'The entities found and the ids not found.',
      schema: z.object({
        type: z.string(),
        items: z.array(contentViewSchema),
        missing: z.array(z.string()).meta({
          description: 'Ids with no stored content (or, for a scoped key, outside its modules).',
        }),
      }),
      headers: responseHeaders,
    },
    errors: ['UNSUPPORTED_LANGUAGE', 'DEPENDENCY_UNAVAILABLE'],
    handler: async ({ params, query, headers: h, req, res, principal }) => {
      const chain = chainOf(h['x-language']);
      const ids = [...new Set(query.ids.split(','))];
      const result = await readOrUnavailable(req, () =>
        reader.read({ type: params.type, ids, chain, ...readerOf(req, principal) }),
      );
      setContentLanguage(res, result.found, chain);
      return {
        type: params.type,
        items: result.found.map((entry) => viewBody(entry.view, query.meta === 'true')),
        missing: [...result.missing],
      };
    },
  });
