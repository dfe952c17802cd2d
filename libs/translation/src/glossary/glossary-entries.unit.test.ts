import { describe, expect, it } from '@jest/globals';

import { AppError } from '@tp/runtime';

import { GLOSSARY_LIMITS, checkEntries, parseEntries } from './glossary-entries.js';

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('glossary entries', () => {
  it('reads CSV with quoted fields, CRLF line ends and blank lines, trimming terms', () => {
    const csv =
      'Acme,Acme\r\n"Smith, Jones","Smith y Jones"\r\n\r\n  say ""hi"" , "di ""hola"""\n"two\nlines",x';
    expect(() => parseEntries(csv, 'csv')).toThrow(AppError);
    const fine = 'Acme,Acme\r\n"Smith, Jones","Smith y Jones"\r\n\r\n "say ""hi""" , "di ""hola"""\n';
    expect(parseEntries(fine, 'csv')).toEqual([
      { source: 'Acme', target: 'Acme' },
      { source: 'Smith, Jones', target: 'Smith y Jones' },
      { source: 'say "hi"', target: 'di "hola"' },
    ]);
  });

  it('reads TSV, one tab a line', () => {
    expect(parseEntries('Acme\tAcme\nfresh\tfresco\n', 'tsv')).toEqual([
      { source: 'Acme', target: 'Acme' },
      { source: 'fresh', target: 'fresco' },
    ]);
  });

  it('reports every malformed line with its number', () => {
    const err = failure(() => parseEntries('ok,fine\nonly-one\na,b,c\n"open,x\n', 'csv'));
    expect(err.code).toBe('GLOSSARY_ENTRIES_INVALID');
    expect((err.details as { issues: { line: number }[] }).issues.map((i) => i.line)).toEqual([2, 3, 4]);
  });

  it('refuses empty terms, repeated source terms and control characters', () => {
    const empty = failure(() => parseEntries('a,\n', 'csv'));
    expect(empty.message).toContain('target term is empty');
    const twice = failure(() => parseEntries('Acme,A\nb,c\n Acme ,B\n', 'csv'));
    expect((twice.details as { issues: unknown[] }).issues).toEqual([
      { line: 3, message: 'the source term "Acme" is already on line 1' },
    ]);
    expect(failure(() => checkEntries([{ source: 'a\tb', target: 'x' }])).code).toBe(
      'GLOSSARY_ENTRIES_INVALID',
    );
    expect(failure(() => parseEntries('\n\n', 'csv')).message).toContain('at least one entry');
  });

  it('refuses more entries, bytes or term length than the limits with GLOSSARY_TOO_LARGE', () => {
    const many = Array.from({ length: GLOSSARY_LIMITS.maxEntries + 1 }, (_, i) => `t${i},u${i}`).join('\n');
    expect(failure(() => parseEntries(many, 'csv'))).toMatchObject({
      code: 'GLOSSARY_TOO_LARGE',
      details: { limit: GLOSSARY_LIMITS.maxEntries, unit: 'entries' },
    });
    const big = `${'x'.repeat(GLOSSARY_LIMITS.maxBytes)},y`;
    expect(failure(() => parseEntries(big, 'csv'))).toMatchObject({
      code: 'GLOSSARY_TOO_LARGE',
      details: { unit: 'bytes' },
    });
    const long = `${'x'.repeat(GLOSSARY_LIMITS.maxTermLength + 1)},y`;
    expect(failure(() => parseEntries(long, 'csv')).message).toContain('longer than 200');
  });
});
