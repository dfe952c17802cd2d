import { AppError, ERROR_CATALOGUE, type ErrorCode } from '@tp/runtime';
import type { ItemError } from '@tp/service-contracts';

import type { RouteContext, RequestSchemas } from '../http/route.js';
import type { Translation, TranslateText } from '../translate/translate.routes.js';

type Input = Parameters<TranslateText>[0];

/** A failed item as the error it carries (its code when it is one of ours, else the translator's 503). */
function itemFailure(error: ItemError): AppError {
  const code = (error.error in ERROR_CATALOGUE ? error.error : 'TRANSLATION_UNAVAILABLE') as ErrorCode;
  return new AppError(code, error.message, error.details);
}

/**
 * Every text through the platform's translation use case, as DeepL and LibreTranslate answer: all
 * translated, or the request fails with the first text's failure (they have no per-text errors).
 */
export async function translateAll(
  translate: TranslateText,
  input: Omit<Input, 'text'> & { readonly texts: readonly string[] },
  context: Pick<RouteContext<RequestSchemas>, 'req' | 'signal' | 'principal'>,
): Promise<Translation[]> {
  const { texts, ...rest } = input;
  // One text goes as one, as POST /api/v1/translate takes it.
  const text = texts.length === 1 ? (texts[0] ?? '') : [...texts];
  const answer = await translate({ ...rest, text } as Input, context);
  if (!('translations' in answer)) return [answer];
  return answer.translations.map((item) => {
    if ('error' in item) throw itemFailure(item.error);
    return item;
  });
}
