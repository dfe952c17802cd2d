/**
 * Google answers HTML-escaped text (`&#39;`, `&amp;`) whenever the request's format is html, its
 * default; we ask for text, but decode anyway in case a proxy or an older deployment ignores that.
 * One pass, so `&amp;lt;` becomes `&lt;` and not `<`.
 */

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,8}|#\d{1,10}|[a-z]{1,32});/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const hex = name[1] === 'x' || name[1] === 'X';
      const codePoint = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
      return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : entity;
    }
    return NAMED[name.toLowerCase()] ?? entity;
  });
}
