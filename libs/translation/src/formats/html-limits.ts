/**
 * How many elements and attributes an HTML text has at most, in one pass over its characters and
 * before it is parsed: a tag is `<` and a letter, up to its `>` (quoted values skipped), and each
 * name in it after the tag name is an attribute. Text inside `<script>` or a comment that looks like
 * a tag counts too: an upper bound is all a limit needs.
 */
export function countHtmlMarkup(html: string): { elements: number; attributes: number } {
  let elements = 0;
  let attributes = 0;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (!isAsciiLetter(html.charCodeAt(lt + 1))) {
      i = lt + 1;
      continue;
    }
    elements += 1;
    const tag = readTag(html, lt + 1);
    attributes += tag.attributes;
    i = tag.end;
  }
  return { elements, attributes };
}

/** From just after `<`: the tag's attribute count and where it ends (after `>`, or the text's end). */
function readTag(html: string, from: number): { attributes: number; end: number } {
  let i = from;
  while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== '>' && html[i] !== '/') i += 1;
  let attributes = 0;
  while (i < html.length) {
    const ch = html[i] as string;
    if (ch === '>') return { attributes, end: i + 1 };
    if (isSpace(html.charCodeAt(i)) || ch === '/') {
      i += 1;
      continue;
    }
    if (ch === '=') {
      i = skipValue(html, i + 1);
      continue;
    }
    attributes += 1;
    while (i < html.length && !isNameEnd(html[i] as string)) i += 1;
  }
  return { attributes, end: html.length };
}

/** Past an attribute value after `=`: quoted up to its closing quote, else up to a space or `>`. */
function skipValue(html: string, from: number): number {
  let i = from;
  while (i < html.length && isSpace(html.charCodeAt(i))) i += 1;
  const quote = html[i];
  if (quote === '"' || quote === "'") {
    const end = html.indexOf(quote, i + 1);
    return end < 0 ? html.length : end + 1;
  }
  while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== '>') i += 1;
  return i;
}

const isAsciiLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d);
const isNameEnd = (ch: string): boolean =>
  ch === '=' || ch === '>' || ch === '/' || isSpace(ch.charCodeAt(0));
