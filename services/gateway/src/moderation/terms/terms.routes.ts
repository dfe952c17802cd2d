import { MODERATION_TERM_KINDS } from '@tp/db';
import { codePointString } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../http/route.js';
import { languageTag } from '../language-tag.js';
import { normaliseTerm } from '../normalise/normalise.js';
import type { ModerationTermStore } from './moderation-term.store.js';
import type { TermCatalogue } from './term-catalogue.js';

const termSchema = z
  .object({
    id: z.uuid(),
    term: z.string(),
    kind: z.enum(MODERATION_TERM_KINDS).meta({
      description: '`block`: flag it in texts. `allow`: a phrase that clears the blocked terms inside it.',
    }),
    language: z.string().nullable().meta({ description: 'null: the term applies to every language.' }),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'ModerationTerm' });

const createBody = z.strictObject({
  term: codePointString(200)
    .trim()
    .min(1)
    .refine((term) => normaliseTerm(term) !== '', {
      message: 'term has nothing left to match after normalisation (only spaces or invisible characters)',
    }),
  kind: z.enum(MODERATION_TERM_KINDS),
  language: languageTag.optional(),
});

const CHANGES =
  'Applies to the next moderation call on this gateway, and on other gateway processes within about a second.';

/** Admin management of custom moderation terms and allowed phrases. */
export function termRoutes(store: ModerationTermStore, catalogue: TermCatalogue) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/admin/moderation/terms',
      summary: 'List custom moderation terms and allowed phrases',
      description: 'Only what admins added; the built-in lists are in the naughty-words package.',
      tags: ['admin: moderation'],
      access: 'admin',
      response: {
        status: 200,
        description: 'Every custom term, oldest first.',
        schema: z.object({ terms: z.array(termSchema) }),
      },
      handler: async () => ({ terms: await store.list() }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/admin/moderation/terms',
      summary: 'Add a custom moderation term or allowed phrase',
      description: `Terms are compared after normalisation, so \`Ｆｕｃｋ\` duplicates \`fuck\` (409). ${CHANGES}`,
      tags: ['admin: moderation'],
      access: 'admin',
      request: { body: createBody },
      response: { status: 201, description: 'The new term.', schema: termSchema },
      errors: ['CONFLICT'],
      handler: async ({ body }) => {
        const created = await store.create(body);
        await catalogue.reload();
        return created;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/admin/moderation/terms/{id}',
      summary: 'Delete a custom moderation term or allowed phrase',
      description: CHANGES,
      tags: ['admin: moderation'],
      access: 'admin',
      request: { params: z.strictObject({ id: z.uuid() }) },
      response: { status: 200, description: 'The deleted term.', schema: termSchema },
      errors: ['NOT_FOUND'],
      handler: async ({ params }) => {
        const removed = await store.remove(params.id);
        await catalogue.reload();
        return removed;
      },
    }),
  ];
}
