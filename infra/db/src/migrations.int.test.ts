import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { migrateDown, migrateUp, pendingMigrations, schemaDrift } from './migrate.js';

process.env.MIGRATE_QUIET = '1';
let db: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await db.drop();
});

const tables = async () =>
  (
    await client.query<{ t: string }>(
      `select table_name as t from information_schema.tables where table_schema = 'public' order by 1`,
    )
  ).rows.map((r) => r.t);

describe('migrations', () => {
  it('apply on an empty database and create every table of the architecture', async () => {
    expect(await tables()).toEqual([]);
    expect(await migrateUp(db.url)).toEqual([
      'Migration20261121000000_initial',
      'Migration20261121153039_moderation_terms',
      'Migration20261121165741_chat_usage',
      'Migration20261121190000_dead_letters_unique',
      'Migration20261122120000_key_budgets',
      'Migration20261122170700_api_key_modules',
      'Migration20261124180000_translation_requested_at',
      'Migration20261124200000_glossaries',
      'Migration20261124210000_content_lifecycle',
      'Migration20261124213000_human_translations',
      'Migration20261124233000_translation_fallback',
      'Migration20261125000000_content_history_indexes',
      'Migration20261125130000_glossary_deletions',
      'Migration20261129000000_default_zh_tw_target',
      'Migration20261129100000_character_usage',
      'Migration20261129110000_source_formats',
      'Migration20261129120000_dead_letter_parts',
      'Migration20261129130000_translation_backfills',
      'Migration20261129140000_dead_letters_event_unique',
      'Migration20261129150000_backfill_sources_before',
      'Migration20261129230000_backfill_sources_before_required',
    ]);
    expect(await tables()).toEqual([
      'api_keys',
      'chat_usage',
      'content_deletions',
      'content_reports',
      'content_translations',
      'dead_letters',
      'glossaries',
      'glossary_deletions',
      'key_budget_usage',
      'mikro_orm_migrations',
      'moderation_terms',
      'nli_config',
      'outbox',
      'source_contents',
      'translation_backfills',
      'translation_config',
    ]);
    expect(await pendingMigrations(db.url)).toEqual([]);
  });

  it('leave no difference between the entities and the database', async () => {
    expect(await schemaDrift(db.url)).toBe('');
  });

  it('make content_translations unique on exactly (entity_type, entity_id, field, target_lang)', async () => {
    const { rows } = await client.query<{ columns: string[] }>(`
      select array_agg(a.attname order by k.ord)::text[] as columns
      from pg_constraint c
      cross join lateral unnest(c.conkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
      where c.conrelid = 'content_translations'::regclass and c.contype = 'u'
      group by c.oid`);
    expect(rows.map((r) => r.columns)).toEqual([['entity_type', 'entity_id', 'field', 'target_lang']]);

    const insert = `insert into content_translations
      (entity_type, entity_id, field, target_lang, source_lang, translated_text, source_hash, source_version, engine, last_event_id, created_at, updated_at)
      values ('vendor', 'v-1', 'name', $1, 'zh-CN', 'x', 'h', 1, 'offline', gen_random_uuid(), now(), now())`;
    await client.query(insert, ['en']);
    await client.query(insert, ['ja']);
    await expect(client.query(insert, ['en'])).rejects.toThrow(
      /content_translations_entity_field_lang_unique/,
    );
  });

  it('seed the configuration singletons', async () => {
    const { rows } = await client.query(
      `select target_languages, enabled from translation_config where id = 1`,
    );
    // English, and zh-TW, which OpenCC converts the default source language into (issue 34).
    expect(rows).toEqual([{ target_languages: ['en', 'zh-TW'], enabled: true }]);
    const nli = await client.query(`select violation_threshold from nli_config where id = 1`);
    expect(nli.rows).toEqual([{ violation_threshold: 0.5 }]);
  });

  it('revert and re-apply cleanly, one migration at a time', async () => {
    expect(await migrateDown(db.url)).toEqual(['Migration20261129230000_backfill_sources_before_required']);
    const nullable = await client.query(
      `select is_nullable from information_schema.columns where table_name = 'translation_backfills' and column_name = 'sources_before'`,
    );
    expect(nullable.rows).toEqual([{ is_nullable: 'YES' }]);
    // A backfill of the version before has none; the migration gives it its creation time, rounded up
    // to a whole millisecond.
    await client.query(`insert into translation_backfills (id, language, origin, created_at, updated_at)
      values ('00000000-0000-4000-8000-000000000001', 'ca', 'config', '2026-11-29T10:00:00Z', now())`);
    expect(await migrateUp(db.url)).toEqual(['Migration20261129230000_backfill_sources_before_required']);
    const filled = await client.query<{ sources_before: Date }>(
      `select sources_before from translation_backfills`,
    );
    expect(filled.rows.map((row) => row.sources_before.toISOString())).toEqual(['2026-11-29T10:00:00.001Z']);
    await client.query(`delete from translation_backfills`);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129230000_backfill_sources_before_required']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129150000_backfill_sources_before']);
    const sourcesBefore = await client.query(
      `select 1 from information_schema.columns where table_name = 'translation_backfills' and column_name = 'sources_before'`,
    );
    expect(sourcesBefore.rowCount).toBe(0);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129140000_dead_letters_event_unique']);
    const eventUnique = await client.query(
      `select 1 from information_schema.table_constraints where constraint_name = 'dead_letters_event_unique'`,
    );
    expect(eventUnique.rowCount).toBe(0);
    // The same event dead-lettered from two offsets before the constraint: the first entry stays.
    const insert = `insert into dead_letters (event_id, original_topic, original_partition, original_offset, payload,
        headers, consumer_group, error_code, error_message, attempts, failed_at, created_at)
      values ('e-1', 't', 0, $1, '', '{}', 'g', 'X', 'x', 1, now(), now()) returning id`;
    const first = await client.query<{ id: string }>(insert, [1]);
    await client.query(insert, [2]);
    expect(await migrateUp(db.url)).toEqual([
      'Migration20261129140000_dead_letters_event_unique',
      'Migration20261129150000_backfill_sources_before',
      'Migration20261129230000_backfill_sources_before_required',
    ]);
    const kept = await client.query<{ id: string }>(`select id from dead_letters where event_id = 'e-1'`);
    expect(kept.rows).toEqual([{ id: first.rows[0]?.id }]);
    await client.query(`delete from dead_letters`);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129230000_backfill_sources_before_required']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129150000_backfill_sources_before']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129140000_dead_letters_event_unique']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129130000_translation_backfills']);
    expect(await tables()).not.toContain('translation_backfills');
    expect(await migrateDown(db.url)).toEqual(['Migration20261129120000_dead_letter_parts']);
    const part = await client.query(
      `select 1 from information_schema.columns where table_name = 'dead_letters' and column_name = 'original_part'`,
    );
    expect(part.rows).toEqual([]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129110000_source_formats']);
    const format = await client.query(
      `select 1 from information_schema.columns where table_name = 'source_contents' and column_name = 'format'`,
    );
    expect(format.rows).toEqual([]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129100000_character_usage']);
    const characters = await client.query(
      `select 1 from information_schema.columns where table_name = 'key_budget_usage' and column_name = 'characters'`,
    );
    expect(characters.rows).toEqual([]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261129000000_default_zh_tw_target']);
    const config = await client.query(`select target_languages from translation_config where id = 1`);
    expect(config.rows).toEqual([{ target_languages: ['en'] }]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261125130000_glossary_deletions']);
    expect(await tables()).not.toContain('glossary_deletions');
    expect(await migrateDown(db.url)).toEqual(['Migration20261125000000_content_history_indexes']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261124233000_translation_fallback']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261124213000_human_translations']);
    const origin = await client.query(
      `select 1 from information_schema.columns where table_name = 'content_translations' and column_name = 'origin'`,
    );
    expect(origin.rows).toEqual([]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261124210000_content_lifecycle']);
    expect(await tables()).not.toContain('content_deletions');
    expect(await tables()).not.toContain('content_reports');
    expect(await migrateDown(db.url)).toEqual(['Migration20261124200000_glossaries']);
    expect(await tables()).not.toContain('glossaries');
    expect(await migrateDown(db.url)).toEqual(['Migration20261124180000_translation_requested_at']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261122170700_api_key_modules']);
    const modules = await client.query(
      `select 1 from information_schema.columns where table_name = 'api_keys' and column_name = 'modules'`,
    );
    expect(modules.rows).toEqual([]);
    expect(await migrateDown(db.url)).toEqual(['Migration20261122120000_key_budgets']);
    expect(await tables()).not.toContain('key_budget_usage');
    expect(await migrateDown(db.url)).toEqual(['Migration20261121190000_dead_letters_unique']);
    expect(await migrateDown(db.url)).toEqual(['Migration20261121165741_chat_usage']);
    expect(await tables()).not.toContain('chat_usage');
    expect(await migrateDown(db.url)).toEqual(['Migration20261121153039_moderation_terms']);
    expect(await tables()).not.toContain('moderation_terms');
    expect(await migrateDown(db.url)).toEqual(['Migration20261121000000_initial']);
    expect(await tables()).toEqual(['mikro_orm_migrations']);
    await migrateUp(db.url);
    expect(await schemaDrift(db.url)).toBe('');
  });
});
