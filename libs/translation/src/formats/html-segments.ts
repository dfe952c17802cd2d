import { words } from '@tp/runtime';
import { defaultTreeAdapter, parse, parseFragment, serialize, type DefaultTreeAdapterTypes } from 'parse5';

import { nestSegment, readSegment, SegmentWriter, type InlineNode } from './inline-segment.js';
import { countHtmlMarkup, limitedTreeAdapter } from './html-limits.js';
import { MARKUP_LIMITS, MarkupTooComplexError } from './markup-error.js';
import type { Segmented } from './segmented.js';

type Node = DefaultTreeAdapterTypes.Node;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type Element = DefaultTreeAdapterTypes.Element;

/** Attributes people read: translated as segments of their own. */
const TRANSLATED_ATTRIBUTES = new Set(['alt', 'title', 'placeholder', 'aria-label']);
/** Elements whose content is code, data or not text: left exactly as they are. */
const UNTOUCHED = new Set([
  'code',
  'pre',
  'script',
  'style',
  'template',
  'noscript',
  'textarea',
  'svg',
  'math',
]);
/** Phrasing elements around words: kept in place in the sentence they belong to. */
const INLINE_WRAPPERS = new Set(
  'a abbr b bdi bdo big cite data del dfn em font i ins kbd label mark nobr q s samp small span strike strong sub sup time tt u var'.split(
    ' ',
  ),
);
/** Phrasing elements kept whole inside a sentence (void, embedded or form controls). */
const INLINE_ATOMS = new Set(
  'br wbr img input select button meter progress output canvas iframe embed object audio video picture'.split(
    ' ',
  ),
);

/**
 * An HTML fragment or document (parse5, as browsers parse it) as segments: each run of text and
 * inline elements inside a block is one segment, with its inline elements as placeholders, and
 * `alt`, `title`, `placeholder` and `aria-label` are segments of their own. Elements with
 * `translate="no"` or class `notranslate`, and code, pre, script, style (UNTOUCHED) are left as they
 * are with everything inside. The answer is the tree serialized again: well-formed, with `&`, `<`,
 * `>` and no-break spaces written as references and other references as the characters they name.
 */
export function segmentHtml(html: string): Segmented {
  const counts = countHtmlMarkup(html);
  if (counts.elements > MARKUP_LIMITS.elements) throw new MarkupTooComplexError('elements');
  if (counts.attributes > MARKUP_LIMITS.attributes) throw new MarkupTooComplexError('attributes');
  const options = { treeAdapter: limitedTreeAdapter() };
  const root: ParentNode = isDocument(html) ? parse(html, options) : parseFragment(html, options);
  const { runs, attributes } = collect(root);
  return {
    segments: [...runs.map((run) => run.segment), ...attributes.map((attribute) => attribute.segment)],
    reassemble(translations) {
      attributes.forEach((attribute, i) => {
        const translated = translations[runs.length + i];
        if (translated !== undefined) attribute.set(plainText(translated));
      });
      // Later runs first: replacing a run leaves the positions of the runs before it in place.
      for (let i = runs.length - 1; i >= 0; i -= 1) {
        const translated = translations[i];
        if (translated !== undefined) replaceRun(runs[i] as Run, translated);
      }
      return serialize(root);
    },
  };
}

/** A run of inline content in a block: where it is, its segment, and the nodes its placeholders name. */
interface Run {
  readonly parent: ParentNode;
  readonly from: number;
  readonly count: number;
  readonly segment: string;
  /** By placeholder id: elements (around their content) and atoms (kept whole). */
  readonly nodes: readonly ChildNode[];
  readonly atoms: ReadonlySet<number>;
  readonly elements: ReadonlySet<number>;
}

interface AttributeSegment {
  readonly segment: string;
  set(value: string): void;
}

/** Walks the tree without recursion: blocks give runs, translatable elements their attributes. */
function collect(root: ParentNode): { runs: Run[]; attributes: AttributeSegment[] } {
  const runs: Run[] = [];
  const attributes: AttributeSegment[] = [];
  const containsBlock = blockAncestors(root);
  const blocks: ParentNode[] = [root];
  while (blocks.length > 0) {
    const node = blocks.pop() as ParentNode;
    if (isElement(node)) attributes.push(...attributeSegments(node));
    const inner: Element[] = [];
    let run: ChildNode[] = [];
    const flush = (end: number) => {
      const found = run.length > 0 ? runOf(node, end - run.length, run, attributes) : undefined;
      if (found) runs.push(found);
      run = [];
    };
    node.childNodes.forEach((child, index) => {
      if (isInline(child, containsBlock)) {
        run.push(child);
        return;
      }
      flush(index);
      if (isElement(child) && !untouched(child)) inner.push(child);
    });
    flush(node.childNodes.length);
    // Reversed onto the stack, so blocks are read in document order.
    blocks.push(...inner.reverse());
  }
  return { runs, attributes };
}

/** The run's segment (undefined when it has no words), its placeholders' nodes, and their attributes. */
function runOf(
  parent: ParentNode,
  from: number,
  children: readonly ChildNode[],
  attributes: AttributeSegment[],
): Run | undefined {
  const writer = new SegmentWriter();
  const nodes: ChildNode[] = [];
  const atoms = new Set<number>();
  const elements = new Set<number>();
  const work: (ChildNode | { close: number })[] = [...children].reverse();
  while (work.length > 0) {
    const item = work.pop() as ChildNode | { close: number };
    if ('close' in item) writer.close(item.close);
    else if (item.nodeName === '#text') writer.write((item as DefaultTreeAdapterTypes.TextNode).value);
    else if (isElement(item) && INLINE_WRAPPERS.has(item.tagName) && !untouched(item)) {
      const id = nodes.push(item) - 1;
      elements.add(id);
      writer.open(id);
      attributes.push(...attributeSegments(item));
      work.push({ close: id }, ...[...item.childNodes].reverse());
    } else {
      const id = nodes.push(item) - 1;
      atoms.add(id);
      writer.atom(id);
      if (isElement(item) && !untouched(item)) attributes.push(...attributeSegments(item));
    }
  }
  if (!writer.hasWords()) return undefined;
  return { parent, from, count: children.length, segment: writer.toString(), nodes, atoms, elements };
}

/** Puts a run's translation in its place: the same elements and atoms, in the translation's order. */
function replaceRun(run: Run, translated: string): void {
  const tree = nestSegment(readSegment(translated), run.atoms, run.elements);
  const build = (nodes: readonly InlineNode[], parent: ParentNode): ChildNode[] =>
    nodes.map((node) => {
      if (node.kind === 'text') return withParent(defaultTreeAdapter.createTextNode(node.text), parent);
      const original = run.nodes[node.id] as ChildNode;
      if (node.kind === 'element') {
        const element = original as Element;
        element.childNodes = build(node.children, element);
      }
      return withParent(original, parent);
    });
  run.parent.childNodes.splice(run.from, run.count, ...build(tree, run.parent));
}

function withParent(node: ChildNode, parent: ParentNode): ChildNode {
  node.parentNode = parent;
  return node;
}

function attributeSegments(element: Element): AttributeSegment[] {
  return element.attrs.flatMap((attribute) => {
    if (!TRANSLATED_ATTRIBUTES.has(attribute.name) || attribute.value.trim() === '') return [];
    const writer = new SegmentWriter();
    writer.write(attribute.value);
    return [{ segment: writer.toString(), set: (value: string) => (attribute.value = value) }];
  });
}

/** A translated attribute's text: placeholders an engine invented are dropped. */
function plainText(translated: string): string {
  return readSegment(translated)
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/**
 * Whether a node belongs to the run of text around it: text, comments, inline elements without a
 * block inside, and untouched elements among inline content (a code span).
 */
function isInline(node: ChildNode, containsBlock: ReadonlySet<Node>): boolean {
  if (node.nodeName === '#text' || node.nodeName === '#comment') return true;
  if (!isElement(node)) return false;
  if (INLINE_ATOMS.has(node.tagName)) return true;
  if (!INLINE_WRAPPERS.has(node.tagName) && node.tagName !== 'code') return false;
  return !containsBlock.has(node);
}

/**
 * Every node with a block element somewhere inside, in one pass over the tree (no recursion); a tree
 * nested deeper than MARKUP_LIMITS.depth (its serialization would recurse that deep) or with more
 * nodes than MARKUP_LIMITS.nodes is refused.
 */
function blockAncestors(root: ParentNode): Set<Node> {
  const order: Node[] = [];
  const stack: { node: Node; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: Node; depth: number };
    if (depth > MARKUP_LIMITS.depth) throw new MarkupTooComplexError('depth');
    if (order.push(node) > MARKUP_LIMITS.nodes) throw new MarkupTooComplexError('nodes');
    if ('childNodes' in node)
      for (const child of node.childNodes) stack.push({ node: child, depth: depth + 1 });
  }
  const containing = new Set<Node>();
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const node = order[i] as Node;
    const parent = 'parentNode' in node ? node.parentNode : null;
    if (!parent) continue;
    const block = isElement(node) && !INLINE_WRAPPERS.has(node.tagName) && !INLINE_ATOMS.has(node.tagName);
    if (block || containing.has(node)) containing.add(parent);
  }
  return containing;
}

/** translate="no", class notranslate, or code-like content: nothing inside is translated. */
function untouched(element: Element): boolean {
  if (UNTOUCHED.has(element.tagName)) return true;
  for (const { name, value } of element.attrs) {
    if (name === 'translate' && value.trim().toLowerCase() === 'no') return true;
    if (name === 'class' && [...words(value)].includes('notranslate')) return true;
  }
  return false;
}

const isElement = (node: Node): node is Element => 'tagName' in node;

/** A whole document (doctype or `<html>` first, after spaces and comments) rather than a fragment. */
function isDocument(html: string): boolean {
  let i = 0;
  for (;;) {
    while (i < html.length && html.charCodeAt(i) <= 0x20) i += 1;
    if (!html.startsWith('<!--', i)) break;
    const end = html.indexOf('-->', i + 4);
    if (end < 0) return false;
    i = end + 3;
  }
  const head = html.slice(i, i + 9).toLowerCase();
  return head === '<!doctype' || (head.startsWith('<html') && /^<html[\s>]/.test(head));
}
