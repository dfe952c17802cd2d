import { MAX_TRANSLATE_TEXTS } from '@tp/service-contracts';
import { z } from 'zod';

import { fromLibreCode, libreCode } from '../compat/language-codes.js';
import { translateAll } from '../compat/translate-all.js';
import { defineRoute } from '../http/route.js';
import { textOrTexts, TRANSLATE_ERRORS, type TranslateText } from '../translate/translate.routes.js';
import { LIBRE_TAGS, LIBRE_WIRE, apiKeyFields } from './libre-wire.js';

const language = (field: 'source' | 'target') =>
  z
    .string()
    .max(35)
    .transform((code, ctx) => {
      if (field === 'source' && code === 'auto') return 'auto';
      const ours = fromLibreCode(code);
      if (ours) return ours;
      ctx.addIssue({ code: 'custom', message: `${code} is not supported` });
      return z.NEVER;
    });

const translateBody = z.strictObject({
  q: textOrTexts(z.string().min(1, 'Invalid request: missing q parameter')).meta({
    description: `One text, or up to ${MAX_TRANSLATE_TEXTS}.`,
  }),
  source: language('source').default('auto').meta({ description: 'A code of GET /languages, or `auto`.' }),
  target: language('target'),
  format: z.enum(['text', 'html']).optional(),
  alternatives: z
    .union([z.int().min(0).max(10), z.string().regex(/^\d{1,2}$/)])
    .optional()
    .meta({ description: 'Answered with an empty `alternatives` list: the engines give one translation.' }),
  ...apiKeyFields,
});

const detected = z.object({ language: z.string(), confidence: z.number() });

const answerSchema = z.object({
  translatedText: z.union([z.string(), z.array(z.string())]),
  detectedLanguage: z
    .union([detected, z.array(detected)])
    .optional()
    .meta({ description: 'With `source: auto`: the language each text was read as (confidence 100).' }),
  alternatives: z.union([z.array(z.string()), z.array(z.array(z.string()))]).optional(),
});

/** POST /translate. */
export function libreTranslateRoute(translate: TranslateText) {
  return defineRoute({
    method: 'post',
    path: '/translate',
    summary: 'LibreTranslate: translate text',
    description: `LibreTranslate-compatible, over the use case of POST /api/v1/translate (public with its limits, cache, engine chain, glossaries; a valid \`api_key\` is counted and budgeted as that key). \`q\` a string or up to ${MAX_TRANSLATE_TEXTS}; a text that fails fails the request, as at LibreTranslate. \`format: html\` as in POST /api/v1/translate.`,
    tags: LIBRE_TAGS,
    access: 'public',
    wire: LIBRE_WIRE,
    request: { body: translateBody },
    response: { status: 200, description: 'The translation(s).', schema: answerSchema },
    errors: TRANSLATE_ERRORS,
    handler: async (context) => {
      const { body } = context;
      const texts = typeof body.q === 'string' ? [body.q] : body.q;
      const done = await translateAll(
        translate,
        { texts, source: body.source, target: body.target, format: body.format ?? 'text' },
        context,
      );
      const translated = done.map((translation) => translation.translatedText);
      const languages = done.map((translation) => ({
        language: libreCode(translation.source),
        confidence: 100,
      }));
      const one = typeof body.q === 'string';
      return {
        translatedText: one ? (translated[0] ?? '') : translated,
        ...(body.source === 'auto' ? { detectedLanguage: one ? languages[0] : languages } : {}),
        ...(body.alternatives !== undefined && Number(body.alternatives) > 0
          ? { alternatives: one ? [] : texts.map(() => []) }
          : {}),
      };
    },
  });
}
