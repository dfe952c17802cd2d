import { requestId } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../../http/route.js';
import { documentedTranslateBody, translationRequest } from '../../../translate/translate.routes.js';
import type { TranslatorClient } from '../../../translate/translator-client.js';

const attemptSchema = z
  .object({
    slot: z.enum(['primary', 'fallback', 'local', 'apertium', 'offline']),
    engine: z.string().nullable().meta({ description: 'null when the slot has no engine configured.' }),
    outcome: z.enum(['ok', 'failed', 'skipped', 'breaker-open', 'unsupported']).meta({
      description:
        '`unsupported`: the engine does not serve the pair (by its own language list; not called).',
    }),
    reason: z.string().optional(),
    source: z.string().optional().meta({ description: 'On a pivot route: the hop this attempt was for.' }),
    target: z.string().optional(),
    duration_ms: z.number().meta({ description: 'Time spent on this engine, chunks and retries included.' }),
  })
  .meta({ id: 'TranslationAttempt' });

export const translationTestSchema = z
  .object({
    translatedText: z.string(),
    source: z.string().meta({ description: 'Source language actually used (the detected one for `auto`).' }),
    target: z.string(),
    detectedSource: z.string().optional().meta({ description: 'Only for `auto`.' }),
    engine: z.string().meta({
      description: 'The engine that answered; `none` when no engine was needed (source = target).',
    }),
    truncated: z.boolean(),
    duration: z.number().meta({ description: 'Seconds spent in the chain.' }),
    attempts: z
      .array(attemptSchema)
      .meta({ description: 'Every slot of the chain, in order, then the hops of a pivot route.' }),
    route: z
      .array(z.object({ source: z.string(), target: z.string(), engine: z.string() }))
      .optional()
      .meta({ description: 'One step for the pair itself, two through a pivot language.' }),
    unknownWords: z.int().optional(),
  })
  .meta({ id: 'TranslationTest' });

/** POST /api/admin/translate/test: the engine chain alone, through the translator's POST /translate/test. */
export function testTranslationRoute(translator: TranslatorClient, maxTextChars: number) {
  return defineRoute({
    method: 'post',
    path: '/api/admin/translate/test',
    summary: 'Test a translation',
    description:
      'Runs the engine chain on the text as POST /api/v1/translate would, but without the hot cache and without storing the result, and shows which engine answered and what every engine did, with its time. When every engine fails the answer is 503 TRANSLATION_UNAVAILABLE with the timed attempts in `details.attempts`. Engine breakers and counters see the call like any other.',
    tags: ['admin: translation'],
    access: 'admin',
    request: { body: documentedTranslateBody(maxTextChars) },
    response: {
      status: 200,
      description: 'The translation and the attempts.',
      schema: translationTestSchema,
    },
    errors: [
      'TEXT_TOO_LONG',
      'TRANSLATION_UNAVAILABLE',
      'TRANSLATOR_UNAVAILABLE',
      'UNSUPPORTED_LANGUAGE',
      'UNSUPPORTED_LANGUAGE_PAIR',
    ],
    handler: ({ body, req, signal }) =>
      translator.testChain<z.input<typeof translationTestSchema>>(
        translationRequest(body, maxTextChars),
        requestId(req),
        signal,
      ),
  });
}
