import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';

import { configurationDoc, shownDefault } from './configuration-doc.js';

const port = (n: number) => z.coerce.number().default(n).describe('HTTP port');
const shared = z.string().default('tp:').describe('key prefix');

describe('configurationDoc', () => {
  const doc = configurationDoc(
    [
      {
        program: 'a',
        shape: { PORT: port(1), PREFIX: shared, A_ONLY: z.string().default('').describe('a | b') },
      },
      {
        program: 'b',
        shape: { PORT: port(2), PREFIX: shared, SHARED_AB: z.coerce.number().default(5).describe('both') },
      },
    ],
    [{ program: 'npm start', shape: { START_PORT: port(9) } }],
  );

  it('lists every setting once, counts them, and puts what every service reads first', () => {
    expect(doc).toContain('**5 settings.**');
    expect(doc.split('`PORT`')).toHaveLength(2);
    expect(doc).toContain('| `PORT` | `1` (a), `2` (b) | HTTP port |');
    expect(doc).toContain('| `PREFIX` | `tp:` | key prefix |');
    expect(doc.indexOf('## Every service')).toBeLessThan(doc.indexOf('## a'));
  });

  it('names the programs reading a setting, escapes pipes and shows an empty default as empty', () => {
    expect(doc).toContain('| `A_ONLY` | empty | a | a \\| b |');
    expect(doc).toContain(
      '## b\n\n| setting | default | read by | meaning |\n|---|---|---|---|\n| `SHARED_AB` | `5` | b | both |',
    );
    expect(doc).toContain('## npm start');
  });

  it('refuses a setting without a meaning, or with two meanings', () => {
    expect(() => configurationDoc([{ program: 'a', shape: { X: z.string().default('') } }], [])).toThrow(
      /X \(a\) has no description/,
    );
    expect(() =>
      configurationDoc(
        [
          { program: 'a', shape: { X: z.string().default('').describe('one') } },
          { program: 'b', shape: { X: z.string().default('').describe('two') } },
        ],
        [],
      ),
    ).toThrow(/X means two things/);
  });

  it('shows lists, objects and booleans as the environment spells them', () => {
    expect(shownDefault(['a', 'b'])).toBe('`a,b`');
    expect(shownDefault([])).toBe('empty');
    expect(shownDefault({ k: 1 })).toBe('`{"k":1}`');
    expect(shownDefault(false)).toBe('`false`');
  });
});
