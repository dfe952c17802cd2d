// A small line chart in SVG (attributes only, no inline styles): one polyline per series.

const NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 160;

export interface Series {
  readonly name: string;
  readonly className: string;
  readonly points: readonly number[];
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}

/** Draws the series into `host` (replacing what was there), scaled to the largest value. */
export function drawChart(host: Element, title: string, series: readonly Series[], capacity: number): void {
  const max = Math.max(1, ...series.flatMap((s) => s.points));
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H + 20}`,
    role: 'img',
    'aria-label': title,
    class: 'chart',
  });
  root.appendChild(svg('line', { x1: 0, y1: H, x2: W, y2: H, class: 'axis' }));
  const top = svg('text', { x: 4, y: 12, class: 'axis-label' });
  top.textContent = `${max.toFixed(1)}/s`;
  root.appendChild(top);
  for (const s of series) {
    const step = W / Math.max(1, capacity - 1);
    const offset = capacity - s.points.length;
    const points = s.points.map(
      (v, i) => `${((offset + i) * step).toFixed(1)},${(H - (v / max) * (H - 16)).toFixed(1)}`,
    );
    root.appendChild(svg('polyline', { points: points.join(' '), class: `line ${s.className}` }));
  }
  host.replaceChildren(root);
}
