// Small DOM helpers: elements are built with h(), never from HTML strings, so API data is always text.

export type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Handler | undefined>;

/** An element with attributes (`on<event>` keys add listeners; `true` sets a boolean attribute). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let nextId = 0;
/** A label and its input, tied by id (the input gets one when it has none). */
export function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  if (!input.id) input.id = `f${++nextId}`;
  const hintEl = hint ? h('small', { id: `${input.id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hintEl);
}

/** A table with a caption; `rows` are cells (or whole rows' cells) already built. */
export function table(caption: string, head: readonly string[], rows: readonly Child[][]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c) => h('td', {}, c))))),
    ),
  );
}

/** A status message read out by screen readers. */
export function notice(kind: 'ok' | 'error' | 'info', text: string): HTMLElement {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** A badge whose class says good, warn or bad (with the word itself, not colour alone). */
export function badge(text: string, tone: 'good' | 'warn' | 'bad' | 'plain' = 'plain'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, text);
}

export const input = (attrs: Attrs = {}) => h('input', { type: 'text', ...attrs });

export function select(
  options: readonly (string | [string, string])[],
  attrs: Attrs = {},
): HTMLSelectElement {
  return h(
    'select',
    attrs,
    ...options.map((o) =>
      typeof o === 'string' ? h('option', { value: o }, o) : h('option', { value: o[0] }, o[1]),
    ),
  );
}

export const time = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '—';
