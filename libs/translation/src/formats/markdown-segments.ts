import MarkdownIt, { type Token } from 'markdown-it';

import { nestSegment, readSegment, SegmentWriter, type InlineNode } from './inline-segment.js';
import { escapeMarkdown, inlineCode, linkTail } from './markdown-write.js';
import { MARKUP_LIMITS, MarkupTooComplexError } from './markup-error.js';
import type { Segmented } from './segmented.js';

/**
 * markdown-it (CommonMark, GFM tables and strikethrough, bare links): linear on the pathological
 * inputs of the CommonMark suite, and its nesting stops at `maxNesting`. Links keep their targets
 * as written (no normalisation, every scheme), since nothing here renders them.
 */
const parser = new MarkdownIt('default', { html: true, linkify: true, maxNesting: MARKUP_LIMITS.nesting });
parser.normalizeLink = (url) => url;
parser.normalizeLinkText = (text) => text;
parser.validateLink = () => true;

/** A block whose words are one segment: where its inline content is in the source, and its pieces. */
interface Block {
  readonly start: number;
  readonly end: number;
  readonly segment: string;
  readonly pieces: readonly Piece[];
  readonly atoms: ReadonlySet<number>;
  readonly elements: ReadonlySet<number>;
}

/** What a placeholder stands for: an element's delimiters around its content, or source kept whole. */
type Piece = { readonly open: string; readonly close: string } | { readonly source: string };

/**
 * Markdown as segments: the inline content of each paragraph, heading and table cell is one segment
 * (emphasis, strong, strikethrough and links as placeholders around their words; code spans, inline
 * HTML, images, autolinks and hard breaks kept whole). Everything else (code blocks, HTML blocks,
 * link definitions, list markers, quote markers, link targets) is never a segment, and the answer is
 * the source with only those inline contents replaced, each on one line.
 */
export function segmentMarkdown(markdown: string): Segmented {
  checkSource(markdown);
  const tokens = parser.parse(markdown, {});
  checkLimits(tokens);
  const lines = lineStarts(markdown);
  const blocks = findBlocks(tokens, markdown, lines);
  return {
    segments: blocks.map((block) => block.segment),
    reassemble(translations) {
      let out = '';
      let cursor = 0;
      blocks.forEach((block, i) => {
        const translated = translations[i];
        if (translated === undefined) return;
        const tree = nestSegment(readSegment(translated), block.atoms, block.elements);
        out += markdown.slice(cursor, block.start) + write(tree, block.pieces, true);
        cursor = block.end;
      });
      return out + markdown.slice(cursor);
    },
  };
}

/** Before parsing: what makes markdown-it's work grow beyond a few milliseconds (MARKUP_LIMITS). */
function checkSource(markdown: string): void {
  let lines = 1;
  let brackets = 0;
  let delimiters = 0;
  for (let i = 0; i < markdown.length; i += 1) {
    const code = markdown.charCodeAt(i);
    if (code === 0x0a) lines += 1;
    else if (code === 0x5b) brackets += 1;
    else if (code === 0x2a || code === 0x5f || code === 0x7e) delimiters += 1;
  }
  if (lines > MARKUP_LIMITS.lines) throw new MarkupTooComplexError('lines');
  if (brackets > MARKUP_LIMITS.brackets) throw new MarkupTooComplexError('brackets');
  if (delimiters > MARKUP_LIMITS.delimiters) throw new MarkupTooComplexError('delimiters');
}

function checkLimits(tokens: readonly Token[]): void {
  let count = 0;
  for (const token of tokens) {
    count += 1 + (token.children?.length ?? 0);
    // markdown-it stops nesting at maxNesting: content that deep is refused rather than misread.
    if (token.level >= MARKUP_LIMITS.nesting - 1) throw new MarkupTooComplexError('nesting');
  }
  if (count > MARKUP_LIMITS.elements) throw new MarkupTooComplexError('elements');
}

/** Each paragraph's, heading's and table cell's inline content whose place in the source is found. */
function findBlocks(tokens: readonly Token[], source: string, lines: readonly number[]): Block[] {
  const blocks: Block[] = [];
  let row: { line: number; cursor: number } | undefined;
  tokens.forEach((token, i) => {
    if (token.type === 'tr_open' && token.map) row = { line: token.map[0], cursor: 0 };
    if (token.type !== 'inline' || token.content.trim() === '') return;
    const opener = tokens[i - 1];
    let range: { start: number; end: number; prefix: string } | undefined;
    if (opener?.type === 'th_open' || opener?.type === 'td_open')
      range = row && cellRange(token, source, lines, row);
    else if (opener?.type === 'heading_open' && opener.markup.startsWith('#'))
      range = atxRange(token, source, lines);
    else if (token.map) range = linesRange(token.content, token.map, source, lines);
    const block = range && blockOf(token.children ?? [], range);
    if (block) blocks.push(block);
  });
  return blocks.sort((a, b) => a.start - b.start);
}

function blockOf(
  children: readonly Token[],
  range: { start: number; end: number; prefix: string },
): Block | undefined {
  const writer = new SegmentWriter();
  const pieces: Piece[] = [];
  const atoms = new Set<number>();
  const elements = new Set<number>();
  const open: number[] = [];
  const atom = (source: string) => {
    const id = pieces.push({ source }) - 1;
    atoms.add(id);
    writer.atom(id);
  };
  for (let i = 0; i < children.length; i += 1) {
    const token = children[i] as Token;
    if (token.type === 'text') writer.write(token.content);
    else if (token.type === 'softbreak') writer.write(' ');
    else if (token.type === 'hardbreak') atom(`\\\n${range.prefix}`);
    else if (token.type === 'code_inline') atom(inlineCode(token.content, token.markup));
    else if (token.type === 'link_open' && token.info === 'auto') {
      const text = children[i + 1]?.content ?? '';
      atom(token.markup === 'autolink' ? `<${text}>` : text);
      while (i < children.length && children[i]?.type !== 'link_close') i += 1;
    } else if (token.nesting === 1) {
      const close = token.type === 'link_open' ? linkTail(token) : token.markup;
      const id = pieces.push({ open: token.type === 'link_open' ? '[' : token.markup, close }) - 1;
      elements.add(id);
      open.push(id);
      writer.open(id);
    } else if (token.nesting === -1) writer.close(open.pop() ?? -1);
    else if (token.type === 'image') atom(`![${token.content}${linkTail(token, 'src')}`);
    else atom(token.content);
  }
  if (!writer.hasWords()) return undefined;
  return { start: range.start, end: range.end, segment: writer.toString(), pieces, atoms, elements };
}

/** A translated segment as Markdown: escaped text, the elements' delimiters, atoms as they were. */
function write(nodes: readonly InlineNode[], pieces: readonly Piece[], lineStart: boolean): string {
  let out = '';
  for (const node of nodes) {
    const atStart = lineStart && out === '';
    if (node.kind === 'text') out += escapeMarkdown(node.text, atStart);
    else {
      const piece = pieces[node.id] as Piece;
      if ('source' in piece) out += piece.source;
      else if (node.kind === 'element') out += piece.open + write(node.children, pieces, false) + piece.close;
    }
  }
  return out;
}

/** The offset where each line starts. */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

const lineAt = (source: string, lines: readonly number[], line: number): string =>
  source.slice(lines[line] ?? source.length, (lines[line + 1] ?? source.length + 1) - 1);

/**
 * Where a paragraph's (or setext heading's) inline content lies: from its first line's content (the
 * end of that line, after any quote or list marker) to the end of its last line's content. Also the
 * prefix its continuation lines carry, for a hard break. Undefined when the lines do not end with it.
 */
function linesRange(
  content: string,
  map: readonly [number, number],
  source: string,
  lines: readonly number[],
): { start: number; end: number; prefix: string } | undefined {
  const contentLines = content.split('\n');
  const first = contentLines[0] as string;
  const last = map[0] + contentLines.length - 1;
  const firstSource = lineAt(source, lines, map[0]);
  const firstLine = contentLines.length === 1 ? firstSource.trimEnd() : firstSource;
  if (!firstLine.endsWith(first)) return undefined;
  const start = (lines[map[0]] as number) + firstLine.length - first.length;
  const end = (lines[last] as number) + lineAt(source, lines, last).trimEnd().length;
  const second = contentLines[1];
  const secondSource = second === undefined ? '' : lineAt(source, lines, map[0] + 1);
  const prefix =
    second !== undefined && secondSource.endsWith(second)
      ? secondSource.slice(0, -second.length || undefined)
      : '';
  return end > start ? { start, end, prefix } : undefined;
}

/** An ATX heading's content, after its `#` marks. */
function atxRange(token: Token, source: string, lines: readonly number[]) {
  if (!token.map) return undefined;
  const line = lineAt(source, lines, token.map[0]);
  const at = line.indexOf(token.content, line.indexOf('#'));
  if (at < 0) return undefined;
  const start = (lines[token.map[0]] as number) + at;
  return { start, end: start + token.content.length, prefix: '' };
}

/** A table cell's content, found in its row after the cells before it (`|` written escaped). */
function cellRange(
  token: Token,
  source: string,
  lines: readonly number[],
  row: { line: number; cursor: number },
) {
  const line = lineAt(source, lines, row.line);
  const raw = token.content.replaceAll('|', '\\|');
  const at = line.indexOf(raw, row.cursor);
  if (at < 0) return undefined;
  row.cursor = at + raw.length;
  const start = (lines[row.line] as number) + at;
  return { start, end: start + raw.length, prefix: '' };
}
