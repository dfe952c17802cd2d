import {
  defaultTreeAdapter,
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  type TreeAdapter,
} from 'parse5';

import { MARKUP_LIMITS, MarkupTooComplexError } from './markup-error.js';

type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

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

/** How far an element may stand below its parse-time root (the fragment's <html>) before parsing stops. */
const PARSE_DEPTH = MARKUP_LIMITS.depth + 2;

/**
 * parse5's default tree adapter, refusing while it parses: an element nested beyond the depth
 * limit or more elements and comments than the nodes limit throws MarkupTooComplexError at once.
 * The parser looks down its stack of open elements on most tags (scopes, formatting elements), so a
 * tree let grow before a check costs time in the square of its depth. The tree's exact depth and
 * node count are checked again once parsed (parsing a fragment nests it one level deeper for a while).
 */
export function limitedTreeAdapter(): TreeAdapter<DefaultTreeAdapterMap> {
  let nodes = 0;
  const created = <T>(node: T): T => {
    nodes += 1;
    if (nodes > MARKUP_LIMITS.nodes) throw new MarkupTooComplexError('nodes');
    return node;
  };
  // A template's content is a fragment of its own: its depth goes on from the template's.
  const templates = new WeakMap<ParentNode, ParentNode>();
  const placed = (parent: ParentNode, node: ChildNode): void => {
    if ('tagName' in node && depthOf(parent, templates) >= PARSE_DEPTH)
      throw new MarkupTooComplexError('depth');
  };
  return {
    ...defaultTreeAdapter,
    setTemplateContent(template, content) {
      templates.set(content, template);
      defaultTreeAdapter.setTemplateContent(template, content);
    },
    createElement: (tagName, namespaceURI, attrs) =>
      created(defaultTreeAdapter.createElement(tagName, namespaceURI, attrs)),
    createCommentNode: (data) => created(defaultTreeAdapter.createCommentNode(data)),
    appendChild(parent, node) {
      placed(parent, node);
      defaultTreeAdapter.appendChild(parent, node);
    },
    insertBefore(parent, node, reference) {
      placed(parent, node);
      defaultTreeAdapter.insertBefore(parent, node, reference);
    },
  };
}

/** How many parents a node has (a template's content: the template's), counted up to PARSE_DEPTH. */
function depthOf(node: ParentNode, templates: WeakMap<ParentNode, ParentNode>): number {
  let depth = 0;
  for (let at: ParentNode | undefined = node; at && depth < PARSE_DEPTH; depth += 1)
    at = ('parentNode' in at ? at.parentNode : undefined) ?? templates.get(at);
  return depth;
}
