import type { Token } from 'markdown-it';

/** Characters that start or end inline Markdown anywhere: escaped in translated text. */
const INLINE_SPECIAL = new Set([...'\\`*_[]<>|~'].map((ch) => ch.charCodeAt(0)));
/** Characters that start a block at the beginning of a line (heading, quote, list, setext line). */
const LINE_START_SPECIAL = new Set(['#', '-', '+', '=']);

/**
 * Translated text as Markdown that reads as that text: the characters that could open or close
 * markup are backslash-escaped (CommonMark lets any ASCII punctuation be), `&` before what could be a
 * character reference too, and at the start of a line what would begin a block (`# `, `- `, `1. `).
 */
export function escapeMarkdown(text: string, atLineStart: boolean): string {
  let out = '';
  let from = 0;
  let marker = -1;
  let first = atLineStart;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (first && code !== 0x20 && code !== 0x09) {
      first = false;
      marker = blockMarkerAt(text, i);
    }
    const next = text.charCodeAt(i + 1);
    const reference = code === 0x26 && (next === 0x23 || isAsciiLetter(next));
    if (!INLINE_SPECIAL.has(code) && !reference && i !== marker) continue;
    out += `${text.slice(from, i)}\\`;
    from = i;
  }
  return out + text.slice(from);
}

/**
 * Where the character to escape is when a line starting at `i` would begin a block: the marker
 * itself (`#`, `-`, `+`, `=`), or the `.` or `)` of a list number (`1.`); -1 when none.
 */
function blockMarkerAt(text: string, i: number): number {
  if (LINE_START_SPECIAL.has(text[i] as string)) return i;
  let j = i;
  while (j < text.length && j - i < 10 && isAsciiDigit(text.charCodeAt(j))) j += 1;
  return j > i && (text[j] === '.' || text[j] === ')') ? j : -1;
}

/** A code span around `content`, with the backtick run it had (spaces added where it needs them). */
export function inlineCode(content: string, markup: string): string {
  const pad =
    content.startsWith('`') || content.endsWith('`') || (content.startsWith(' ') && content.endsWith(' '));
  return pad ? `${markup} ${content} ${markup}` : `${markup}${content}${markup}`;
}

/** `(destination "title")` of a link or image as written: angle brackets when the destination needs them. */
export function linkTail(token: Token, attribute = 'href'): string {
  const destination = String(token.attrGet(attribute) ?? '');
  const title = String(token.attrGet('title') ?? '');
  const needsBrackets = destination === '' || /[\s()<>]/.test(destination);
  const written = needsBrackets
    ? `<${destination.replaceAll('<', '\\<').replaceAll('>', '\\>')}>`
    : destination;
  const titled = title ? ` "${title.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : '';
  return `](${written}${titled})`;
}

const isAsciiLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isAsciiDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
