import { describe, expect, it } from '@jest/globals';

import { pairsTable, PAIRS_END, PAIRS_START, withPairsTable } from './pairs-table.js';

describe('the README pairs table', () => {
  it('has a row per source in the language list order, direct targets with engines, then pivoted ones', () => {
    const table = pairsTable([
      { source: 'es', target: 'en', engines: ['apertium'] },
      { source: 'en', target: 'es', engines: ['libretranslate', 'apertium'] },
      { source: 'en', target: 'pt', engines: [], via: 'es' },
      { source: 'en', target: 'zh-CN', engines: ['deepl'] },
    ]);
    expect(table.split('\n')).toEqual([
      '| From | To, directly (engine) | To, through another language |',
      '|---|---|---|',
      '| English `en` | `zh-CN` (deepl), `es` (libretranslate, apertium) | `pt` via `es` |',
      '| Spanish `es` | `en` (apertium) | — |',
    ]);
  });

  it('says so when nothing is translatable', () => {
    expect(pairsTable([])).toMatch(/^_No pair is translatable/);
  });

  it('replaces only what is between the markers, and refuses a README without them', () => {
    const readme = `# Title\n${PAIRS_START}\nold table\n${PAIRS_END}\nafter\n`;
    expect(withPairsTable(readme, 'new table')).toBe(
      `# Title\n${PAIRS_START}\nnew table\n${PAIRS_END}\nafter\n`,
    );
    expect(withPairsTable(withPairsTable(readme, 'x'), 'x')).toBe(withPairsTable(readme, 'x'));
    expect(() => withPairsTable('# Title\n', 'x')).toThrow('lacks the lines');
  });
});
