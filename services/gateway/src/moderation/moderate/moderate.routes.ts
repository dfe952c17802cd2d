import { assertTextLength, codePointString, requestId } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../http/route.js';
import { languageTag } from '../language-tag.js';
import { MODERATION_MODES, type ModerateText } from './moderate-text.js';

const matchSchema = z
  .object({
    term: z.string().meta({ description: 'The listed term, as the list or the admin wrote it.' }),
    start: z.int().nonnegative().meta({ description: 'UTF-16 index in `text` where the match starts.' }),
    end: z
      .int()
      .nonnegative()
      .meta({ description: 'UTF-16 index in `text` where the match ends (exclusive).' }),
    text: z.string().meta({ description: 'The request text between start and end, as sent.' }),
    language: z
      .string()
      .nullable()
      .meta({ description: 'Language of the term; null for a custom term of every language.' }),
    source: z.enum(['list', 'custom']).meta({ description: 'A built-in list, or a term an admin added.' }),
  })
  .meta({ id: 'ModerationMatch' });

export const moderationResultSchema = z
  .object({
    flagged: z.boolean(),
    matches: z.array(matchSchema),
    mode: z.enum(MODERATION_MODES),
    duration_ms: z
      .number()
      .meta({ description: 'Time spent checking: the keyword pass, plus NLI in hybrid mode.' }),
    nli: z.looseObject({ is_safe: z.boolean() }).optional().meta({
      description:
        'Hybrid mode, when the keyword pass was clean: the NLI verdict, as POST /api/v1/moderate/nli gives it.',
    }),
  })
  .meta({ id: 'ModerationResult' });

export function moderateRoute(moderate: ModerateText, maxTextChars: number) {
  return defineRoute({
    method: 'post',
    path: '/api/v1/moderate',
    summary: 'Moderate text against banned terms',
    description: `Any API key. Finds terms of the built-in lists and the admin's custom terms in \`text\`, after folding case, width, zero-width characters, look-alike letters and leetspeak (docs/moderation.md). Latin-script terms match whole words only; Chinese, Japanese and Thai terms match anywhere. Spans are UTF-16 indices into the text as sent. \`hybrid\` also asks the NLI model when no term was found. At most ${maxTextChars} characters (code points, so Chinese and emoji count once); longer is 413 TEXT_TOO_LONG.`,
    tags: ['moderation'],
    access: 'client',
    request: {
      body: z.strictObject({
        // Checked by the handler: 413 TEXT_TOO_LONG, not a 400.
        text: codePointString(maxTextChars, { check: false }).min(1, { message: 'text must not be empty' }),
        mode: z.enum(MODERATION_MODES).default('keyword'),
        languages: z.array(languageTag).min(1).max(50).optional().meta({
          description:
            'Only list terms of these languages (`zh-CN` selects `zh`); default all. Custom terms without a language always apply.',
        }),
      }),
    },
    response: {
      status: 200,
      description: 'The verdict and every term found.',
      schema: moderationResultSchema,
    },
    // DEPENDENCY_UNAVAILABLE: the custom terms could never be read. NLI_*: hybrid mode only.
    errors: [
      'TEXT_TOO_LONG',
      'DEPENDENCY_UNAVAILABLE',
      'NLI_UNAVAILABLE',
      'NLI_MODEL_NOT_READY',
      'NLI_DISABLED',
    ],
    handler: ({ body, req, signal }) => {
      assertTextLength(body.text, maxTextChars);
      return moderate.execute(body, signal, requestId(req));
    },
  });
}
