import { segmentText, type Segmented, type TextFormat } from '@tp/translation';

import type { ChainItem, ChainResult, TranslateBatchRequest, TranslationChain } from './chain.js';

/** One text's answer: its translation, or its own error (a ChainItemError, or MARKUP_TOO_COMPLEX). */
export type FormattedItem = ChainItem | Error;

/** Texts of one pair, all written in `format`. */
export interface FormattedBatchRequest extends TranslateBatchRequest {
  readonly format: TextFormat;
}

/**
 * The texts of one pair written in `format`, through one chain batch: each text cut into its segments
 * (an HTML or Markdown text's blocks and translatable attributes, inline markup as placeholders;
 * plain text as it is), every segment of every text in one translateBatch, each text put back
 * together from its translations. A text whose markup is too complex (MarkupTooComplexError) or one
 * of whose segments failed gets that error; the others their translation.
 */
export async function translateFormatted(
  chain: Pick<TranslationChain, 'translateBatch'>,
  { format, texts, ...pair }: FormattedBatchRequest,
  signal?: AbortSignal,
): Promise<FormattedItem[]> {
  if (format === 'text') return [...(await chain.translateBatch({ ...pair, texts }, signal))];
  const cut: (Segmented | Error)[] = texts.map((text) => {
    try {
      return segmentText(text, format);
    } catch (err) {
      if (err instanceof Error) return err;
      throw err;
    }
  });
  const segments = cut.flatMap((item) => (item instanceof Error ? [] : item.segments));
  const translated =
    segments.length > 0 ? await chain.translateBatch({ ...pair, texts: segments }, signal) : [];
  let next = 0;
  return cut.map((item): FormattedItem => {
    if (item instanceof Error) return item;
    const parts = translated.slice(next, next + item.segments.length);
    next += item.segments.length;
    const failed = parts.find((part) => part instanceof Error);
    if (failed) return failed;
    return joined(item, parts as ChainResult[]);
  });
}

/**
 * One text's result from its segments': the text reassembled, the flags of any, the engine and route
 * of the first segment an engine translated (blank segments have none).
 */
function joined(text: Segmented, parts: readonly ChainResult[]): ChainResult {
  const unknown = parts.flatMap((part) => (part.unknownWords === undefined ? [] : [part.unknownWords]));
  const first = parts.find((part) => part.engine !== undefined);
  return {
    text: text.reassemble(parts.map((part) => part.text)),
    engine: first?.engine,
    truncated: parts.some((part) => part.truncated),
    fallback: parts.some((part) => part.fallback),
    ...(first?.detectedSource ? { detectedSource: first.detectedSource } : {}),
    attempts: parts.flatMap((part) => part.attempts),
    route: first?.route ?? [],
    ...(unknown.length > 0 ? { unknownWords: unknown.reduce((a, b) => a + b, 0) } : {}),
  };
}
