import { segmentHtml } from './html-segments.js';
import { segmentMarkdown } from './markdown-segments.js';
import type { Segmented } from './segmented.js';

/** How a text is written: plain text (the default), an HTML fragment or document, or Markdown (GFM). */
export const TEXT_FORMATS = ['text', 'html', 'markdown'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

/**
 * The segments of `text` in `format`. Throws MarkupTooComplexError for markup beyond MARKUP_LIMITS;
 * any other input gets an answer (HTML parsing repairs unclosed or stray tags as browsers do).
 */
export function segmentText(text: string, format: TextFormat): Segmented {
  switch (format) {
    case 'text':
      return { segments: [text], reassemble: ([translated]) => translated ?? text };
    case 'html':
      return segmentHtml(text);
    case 'markdown':
      return segmentMarkdown(text);
  }
}
