import { LANGUAGES } from '@tp/translation';

/** One pair of GET /api/v1/translate/pairs. */
export interface ServedPair {
  readonly source: string;
  readonly target: string;
  readonly engines: readonly string[];
  readonly via?: string;
}

/** The README's table sits between these lines; `npm run readme:pairs` rewrites what is between. */
export const PAIRS_START =
  '<!-- pairs:start: written by `npm run readme:pairs` from GET /api/v1/translate/pairs of a default `npm start` -->';
export const PAIRS_END = '<!-- pairs:end -->';

const ORDER = new Map(LANGUAGES.map(({ code }, i) => [code, i]));
const NAMES = new Map(LANGUAGES.map(({ code, name }) => [code, name]));
const byList = (a: string, b: string) => (ORDER.get(a) ?? 1e9) - (ORDER.get(b) ?? 1e9) || a.localeCompare(b);
const named = (code: string) => `${NAMES.get(code) ?? code} \`${code}\``;

/**
 * "What translates": one row per source language (in the language list's order), the targets it
 * reaches directly with their engines, and those it reaches through another language.
 */
export function pairsTable(pairs: readonly ServedPair[]): string {
  if (pairs.length === 0) return '_No pair is translatable: no engine is configured or reachable._';
  const sources = [...new Set(pairs.map((pair) => pair.source))].sort(byList);
  const rows = sources.map((source) => {
    const from = pairs.filter((pair) => pair.source === source).sort((a, b) => byList(a.target, b.target));
    const direct = from
      .filter((pair) => pair.via === undefined)
      .map((pair) => `\`${pair.target}\` (${pair.engines.join(', ')})`);
    const through = from
      .filter((pair) => pair.via !== undefined)
      .map((pair) => `\`${pair.target}\` via \`${pair.via}\``);
    return `| ${named(source)} | ${direct.join(', ') || '—'} | ${through.join(', ') || '—'} |`;
  });
  return ['| From | To, directly (engine) | To, through another language |', '|---|---|---|', ...rows].join(
    '\n',
  );
}

/** `readme` with the text between the pairs markers replaced by `table`; throws when a marker is missing. */
export function withPairsTable(readme: string, table: string): string {
  const start = readme.indexOf(PAIRS_START);
  const end = readme.indexOf(PAIRS_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the lines ${PAIRS_START} ... ${PAIRS_END}`);
  return `${readme.slice(0, start + PAIRS_START.length)}\n${table}\n${readme.slice(end)}`;
}
