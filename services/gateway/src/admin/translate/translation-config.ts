import { normaliseLanguageTag } from '@tp/translation';
import { z } from 'zod';

/** Most target languages one configuration may list (each is a translation per changed field). */
export const MAX_TARGET_LANGUAGES = 50;

/** The translation_config row as the admin API shows it. */
export const translationConfigSchema = z
  .object({
    target_languages: z.array(z.string()).meta({
      description: 'Languages every changed field is translated into (the source language is skipped).',
    }),
    enabled: z.boolean().meta({ description: 'false: the planner requests no translations at all.' }),
    human_only: z.array(z.string()).meta({
      description:
        'Languages whose human translations (PUT /api/v1/content/{module}/{type}/{id}/translations/{lang}) are never replaced by a machine one: when the source text changes they are kept, marked stale, and no machine translation is requested.',
    }),
    revision: z.int().meta({ description: 'Bumped on every update.' }),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'TranslationConfig' });

export type TranslationConfigView = z.input<typeof translationConfigSchema>;

/**
 * 0..50 supported codes, stored as our codes (`EN`, `zh_cn`, `en-US` are read as `languageCode`
 * reads them), each once: `en` and `EN-us` are the same language. Every bad item is reported, the
 * duplicates among the valid ones too, so an operator fixes the list in one round.
 */
const languageList = z
  // Items are checked one by one below, so that a wrong type does not hide the other problems.
  .array(z.unknown().meta({ type: 'string', description: 'A language code, e.g. `en`, `zh-CN`.' }), {
    error: 'must be an array of language codes',
  })
  .max(MAX_TARGET_LANGUAGES, { error: `must list at most ${MAX_TARGET_LANGUAGES} languages` })
  .transform((tags, ctx) => {
    const codes: string[] = [];
    const seen = new Map<string, number>();
    tags.forEach((tag, i) => {
      const problem = (message: string) => ctx.addIssue({ code: 'custom', path: [i], message, input: tag });
      if (typeof tag !== 'string') return problem('must be a language code (a string)');
      const code = normaliseLanguageTag(tag);
      if (!code) {
        return problem(`unsupported language ${JSON.stringify(tag)} (see GET /api/v1/translate/languages)`);
      }
      const earlier = seen.get(code);
      if (earlier !== undefined) return problem(`${code} is already listed (item ${earlier})`);
      seen.set(code, i);
      codes.push(code);
    });
    return codes;
  });

/** Body of PUT /api/admin/translate/config: any of its fields; an absent one keeps its value. */
export const translationConfigBody = z
  .strictObject({
    target_languages: languageList.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    human_only: languageList.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    error: 'must set target_languages, enabled or human_only',
    // Only for an otherwise valid body: an unknown field alone already says what is wrong.
    when: (payload) => payload.issues.length === 0,
  });

export type TranslationConfigChange = z.output<typeof translationConfigBody>;
