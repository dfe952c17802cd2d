/**
 * The text of a segment: the words of one block with its inline markup in place, written as a small
 * HTML fragment whatever the document's format. An inline element is `<tN>`...`</tN>` around its
 * content, something kept whole (a code span, an image, a line break, a no-translate element) is
 * `<tN/>`, and in the text only `&`, `<` and `>` are escaped. So the only tags of a segment are these
 * placeholders: the engine chain masks them (and the three references) as protected spans, every
 * engine translates the words around them, and the answer is read back into the same elements in the
 * order the translation put them.
 */

/** One piece of a segment, as written or as read back from its translation. */
export type InlinePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'open' | 'close' | 'atom'; readonly id: number };

/** Writes a segment piece by piece; ids are the caller's (an element's index in its own list). */
export class SegmentWriter {
  private text = '';
  private words = false;

  /** Text as it reads (decoded); escaped here. */
  write(text: string): void {
    if (text.trim() !== '') this.words = true;
    this.text += escapeText(text);
  }

  open(id: number): void {
    this.text += `<t${id}>`;
  }

  close(id: number): void {
    this.text += `</t${id}>`;
  }

  atom(id: number): void {
    this.text += `<t${id}/>`;
  }

  /** Whether any text with more than whitespace was written: a segment without it is not translated. */
  hasWords(): boolean {
    return this.words;
  }

  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function escapeText(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const escaped = ESCAPES[text[i] as string];
    if (escaped === undefined) continue;
    out += text.slice(from, i) + escaped;
    from = i + 1;
  }
  return out + text.slice(from);
}

const REFERENCE_LIST: readonly (readonly [string, string])[] = [
  ['&amp;', '&'],
  ['&lt;', '<'],
  ['&gt;', '>'],
];

/**
 * A translated segment as its pieces, in one pass: placeholders (`<tN>`, `</tN>`, `<tN/>`, spaces
 * inside tolerated) and the text between them with `&amp;`, `&lt;` and `&gt;` decoded. Anything else
 * is text as it stands.
 */
export function readSegment(segment: string): InlinePart[] {
  const parts: InlinePart[] = [];
  let text = '';
  let from = 0;
  let i = 0;
  while (i < segment.length) {
    const code = segment.charCodeAt(i);
    const tag = code === 0x3c ? placeholderAt(segment, i) : undefined;
    const reference = code === 0x26 ? referenceAt(segment, i) : undefined;
    if (!tag && !reference) {
      i += 1;
      continue;
    }
    text += segment.slice(from, i);
    if (reference) text += reference.char;
    if (tag) {
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      parts.push(tag.part);
    }
    i = from = (tag ?? reference)?.end ?? i + 1;
  }
  text += segment.slice(from);
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

/** `<t12>`, `</t12>` or `<t12/>` at `i`, read only as far as its own characters go. */
function placeholderAt(text: string, i: number): { part: InlinePart; end: number } | undefined {
  let j = i + 1;
  const closing = text[j] === '/';
  if (closing) j += 1;
  if (text[j] !== 't') return undefined;
  j += 1;
  const digitsStart = j;
  while (j < text.length && j - digitsStart < 9 && isDigit(text.charCodeAt(j))) j += 1;
  if (j === digitsStart) return undefined;
  const id = Number(text.slice(digitsStart, j));
  while (text[j] === ' ') j += 1;
  const atom = !closing && text[j] === '/';
  if (atom) j += 1;
  if (text[j] !== '>') return undefined;
  const kind = closing ? 'close' : atom ? 'atom' : 'open';
  return { part: { kind, id }, end: j + 1 };
}

function referenceAt(text: string, i: number): { char: string; end: number } | undefined {
  for (const [name, char] of REFERENCE_LIST) {
    if (text.startsWith(name, i)) return { char, end: i + name.length };
  }
  return undefined;
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/** A translated segment as a tree of its elements: what each format writes back. */
export type InlineNode =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'atom'; readonly id: number }
  | { readonly kind: 'element'; readonly id: number; readonly children: InlineNode[] };

/**
 * The pieces of a translation nested as elements. Engines keep placeholders but may reorder or drop
 * them, so this forgives: a close without its open is dropped, an element still open at the end or
 * when an outer one closes is closed there, an id seen again is dropped, and an atom the
 * translation lost is put back at the end (its content must not vanish). `atoms` are the segment's
 * atom ids and `elements` its element ids, so unknown ids are dropped too.
 */
export function nestSegment(
  parts: readonly InlinePart[],
  atoms: ReadonlySet<number>,
  elements: ReadonlySet<number>,
): InlineNode[] {
  const root: InlineNode[] = [];
  const stack: { id: number; children: InlineNode[] }[] = [];
  const used = new Set<number>();
  const current = () => stack[stack.length - 1]?.children ?? root;
  for (const part of parts) {
    if (part.kind === 'text') current().push(part);
    else if (part.kind === 'atom') {
      if (atoms.has(part.id) && !used.has(part.id)) current().push({ kind: 'atom', id: part.id });
      used.add(part.id);
    } else if (part.kind === 'open') {
      if (!elements.has(part.id) || used.has(part.id)) continue;
      used.add(part.id);
      const element = { kind: 'element' as const, id: part.id, children: [] as InlineNode[] };
      current().push(element);
      stack.push(element);
    } else {
      const at = stack.findLastIndex((open) => open.id === part.id);
      if (at >= 0) stack.length = at;
    }
  }
  for (const id of atoms) if (!used.has(id)) root.push({ kind: 'atom', id });
  return root;
}
