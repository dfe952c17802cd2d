import { AppError } from '@tp/runtime';
import { normaliseLanguageTag } from '@tp/translation';
import { z } from 'zod';

/** The shape of a language tag (after trimming), and its longest length. */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8}){0,15}$/;
const MAX_LANGUAGE_TAG_CHARS = 35;

/**
 * What a language tag must look like to be read at all (`en`, `en-US`, `zh_cn`, `zh-Hant-TW`); a tag
 * of this shape that is not in the language list is a separate failure, UNSUPPORTED_LANGUAGE.
 */
export const languageTagSchema = z.string().trim().max(MAX_LANGUAGE_TAG_CHARS).regex(LANGUAGE_TAG, {
  message: 'must be a language tag such as en, en-US or zh-CN',
});

/** 400 UNSUPPORTED_LANGUAGE naming where the tag came from (`source_lang`, `x-language`). */
export function unsupportedLanguage(field: string, tag: string): AppError {
  return new AppError(
    'UNSUPPORTED_LANGUAGE',
    `${field}: unsupported language ${JSON.stringify(tag)} (see GET /api/v1/translate/languages)`,
    { field, value: tag },
  );
}

/** Our code for a tag (`zh-cn` -> `zh-CN`, `en-US` -> `en`), or 400 UNSUPPORTED_LANGUAGE. */
export function supportedLanguage(field: string, tag: string): string {
  const code = normaliseLanguageTag(tag);
  if (!code) throw unsupportedLanguage(field, tag);
  return code;
}
