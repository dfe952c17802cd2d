import { isWhitespaceCode } from '@tp/runtime';

/**
 * Pieces of a long text for the NLI check, each at most `max` UTF-16 units (so at most `max` code
 * points, the nli service's NLI_MAX_TEXT_CHARS). A piece ends at the last whitespace of its window
 * when there is one in the window's second half, and never inside a surrogate pair; the next piece
 * starts `overlap` units earlier (at a whitespace when it can), so a phrase cut at a boundary is read
 * whole by one of the two. Linear: every position is looked at a bounded number of times.
 */
export function nliChunks(text: string, max: number, overlap = Math.floor(max / 10)): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = chunkEnd(text, start, max);
    const chunk = text.slice(start, end);
    if (chunk.trim() !== '') chunks.push(chunk);
    if (end >= text.length) break;
    start = Math.max(nextStart(text, end, overlap), start + 1);
  }
  return chunks;
}

function chunkEnd(text: string, start: number, max: number): number {
  let end = Math.min(text.length, start + max);
  if (end >= text.length) return end;
  if (isLowSurrogate(text.charCodeAt(end))) end -= 1;
  for (let at = end; at > start + Math.floor(max / 2); at -= 1) {
    if (isWhitespaceCode(text.charCodeAt(at - 1))) return at;
  }
  return end;
}

/** `overlap` units back from `end`, moved forward to just after a whitespace when one is near. */
function nextStart(text: string, end: number, overlap: number): number {
  let start = end - overlap;
  if (start <= 0) return end;
  for (let at = start; at < end; at += 1) {
    if (isWhitespaceCode(text.charCodeAt(at - 1))) return at;
  }
  if (isLowSurrogate(text.charCodeAt(start))) start += 1;
  return start;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
