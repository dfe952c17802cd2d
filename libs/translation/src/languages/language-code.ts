import { AppError } from '@tp/runtime';

import { normaliseLanguageTag } from './languages.js';

/**
 * Our code for a client's language tag (`EN`, `en-US`, `zh_cn` are fine), `auto` for a source that
 * asks for detection, or 400 UNSUPPORTED_LANGUAGE naming the field. One rule for every service.
 */
export function languageCode(field: 'source' | 'target', tag: string): string {
  if (field === 'source' && tag.trim().toLowerCase() === 'auto') return 'auto';
  const code = normaliseLanguageTag(tag);
  if (code) return code;
  throw new AppError(
    'UNSUPPORTED_LANGUAGE',
    `${field}: unsupported language ${JSON.stringify(tag)} (see GET /api/v1/translate/languages)`,
    { field, value: tag },
  );
}
