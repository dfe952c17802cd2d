/* eslint-disable tp-tables/table-owner -- this file plants SQL outside the owners for the rule to find */
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

import { tablesNamedIn } from './table-owner.rule.mjs';

/**
 * The repository's own ESLint configuration, run on snippets placed anywhere in the repository: SQL
 * that names a table outside the table's owner fails the lint step of `npm test`.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function problems(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'tp-tables/table-owner').map((m) => m.message);
}

const OUTSIDE = 'services/gateway/src/example/example.ts';

describe('tp-tables/table-owner', () => {
  it('reports a deliberate violation: a gateway file writing content_translations itself', async () => {
    const code = "export const sql = 'update content_translations set stale = true where entity_id = ?';";
    expect(await problems(code, OUTSIDE)).toEqual([
      'content_translations is named in SQL outside its owner (libs/pipeline/src/content-store/): call the owner instead.',
    ]);
  });

  it.each([
    ['a select', "export const q = 'select * from outbox where id = ?';"],
    ['an insert', 'export const q = `insert into dead_letters (id) values (${1})`;'],
    ['a join', "export const q = 'select 1 from api_keys k join chat_usage u on u.api_key_id = k.id';"],
    ['a quoted name', 'export const q = \'delete from "glossaries"\';'],
    ['SQL split over a + chain', "export const q = 'select count(*) from ' + 'source_contents';"],
    ['a list of tables', "export const q = 'vacuum analyze nli_config, translation_config';"],
  ])('reports %s', async (_name, code) => {
    expect((await problems(code, OUTSIDE)).length).toBeGreaterThan(0);
  });

  it('applies to tests, benches and the harness too', async () => {
    const code = "export const q = 'select count(*) from content_translations';";
    for (const file of ['services/worker/src/x.int.test.ts', 'bench/x.bench.ts', 'test/harness/x.ts']) {
      expect(await problems(code, file)).toHaveLength(1);
    }
  });

  it("accepts the table's own owner and the migrations", async () => {
    const code = "export const q = 'select count(*) from content_translations';";
    expect(await problems(code, 'libs/pipeline/src/content-store/example.ts')).toEqual([]);
    expect(await problems(code, 'infra/db/src/migrations/Migration1_example.ts')).toEqual([]);
    expect(await problems("export const q = 'delete from outbox';", 'libs/db/src/outbox/example.ts')).toEqual(
      [],
    );
  });

  it('does not take prose or other words for SQL', async () => {
    for (const code of [
      "export const d = 'Translated fields, projected into content_translations rows.';",
      "export const q = 'select 1 from content_translations_archive';",
      "export const t = 'content_translations';",
    ]) {
      expect(await problems(code, OUTSIDE)).toEqual([]);
    }
  });
});

describe('tablesNamedIn', () => {
  it('finds each table named after a keyword once, in lists and quotes too', () => {
    const tables = ['outbox', 'dead_letters', 'source_contents'];
    expect(tablesNamedIn('SELECT 1 FROM "outbox" o JOIN dead_letters d ON true', tables)).toEqual([
      'outbox',
      'dead_letters',
    ]);
    expect(tablesNamedIn('vacuum analyze outbox, source_contents', tables)).toEqual([
      'outbox',
      'source_contents',
    ]);
    expect(tablesNamedIn('update outbox set x = 1; update outbox set y = 2', tables)).toEqual(['outbox']);
    expect(tablesNamedIn('select * from other', tables)).toEqual([]);
  });
});
