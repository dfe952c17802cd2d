import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  connectDatabase,
  ContentDeletion,
  ContentReport,
  ContentTranslation,
  SourceContent,
  type Orm,
} from '@tp/db';
import { recordContentReport, recordDeletion, upsertTranslations, writeSources } from '@tp/pipeline';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { REPO_ROOT } from '@tp/test/harness/processes';
import { editorTranslation } from '@tp/test/harness/translation-edits';
import { findInvalidContent, purgeInvalidContent } from './invalid-content.js';

// Content stored before the planner applied the content rules, written straight through the content
// store as the planner used to store it: a type `Vendor`, an id with a control character, a module in
// capitals; beside it valid content and free text, which must stay.
let db: TestDatabase;
let orm: Orm;

const source = (module: string, entityType: string, entityId: string) => ({
  module,
  entityType,
  entityId,
  writes: [
    { field: 'name', text: '你好', sourceLang: 'zh-CN', sourceHash: 'h', sourceVersion: 1, format: 'text' },
  ],
});

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  const em = orm.em.fork();
  await writeSources(em, [
    source('catalog', 'Vendor', 'v-1'),
    source('catalog', 'vendor', 'v-1'),
    source('catalog', 'vendor', 'tab\there'),
    source('Shop', 'product', 'p-1'),
  ]);
  await upsertTranslations(em, [
    editorTranslation('v-1', 1, { entityType: 'Vendor' }),
    editorTranslation('v-1', 1),
    editorTranslation('h-1', 0, { entityType: 'text', field: 'text', origin: 'machine', writtenBy: null }),
  ]);
  await recordDeletion(em, {
    entityType: 'Gone Type',
    entityId: 'g-1',
    module: 'catalog',
    deletedVersion: 2,
  });
  await recordContentReport(em, {
    trackingId: randomUUID(),
    apiKeyId: randomUUID(),
    kind: 'change',
    module: 'catalog',
    entityType: 'Vendor',
    entityId: 'v-1',
    sourceVersion: 1,
  });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

describe('content stored under names the content rules refuse', () => {
  it('lists each such entity with the rules it breaks, and nothing valid or free text', async () => {
    const found = await findInvalidContent(orm);
    expect(found.map((e) => [e.module, e.entityType, e.entityId, e.broken])).toEqual([
      ['catalog', 'Vendor', 'v-1', 'entityType: must be 1-100 characters of a-z, 0-9, _ and -'],
      ['Shop', 'product', 'p-1', 'module: must be 1-100 characters of a-z, 0-9, _ and -'],
      ['catalog', 'vendor', 'tab\there', 'entityId: must not contain control characters'],
      // Named by its tombstone alone (a deletion produced straight to Kafka).
      ['catalog', 'Gone Type', 'g-1', 'entityType: must be 1-100 characters of a-z, 0-9, _ and -'],
    ]);
  });

  it('the CLI lists them, and purges everything stored under them, leaving the rest', async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [`${REPO_ROOT}services/worker/dist/invalid-content/invalid-content.cli.js`, ...args],
        {
          env: { ...process.env, DATABASE_URL: db.url },
        },
      );
    const listed = await cli('list');
    expect(listed.stdout).toContain('catalog "Vendor" "v-1": entityType: must be 1-100 characters');
    expect(listed.stdout).toMatch(/^4 entities with refused names$/m);
    expect((await cli('purge', '--dry-run')).stdout).toBe('would purge 4 entities (dry run)\n');
    expect(await orm.em.fork().count(SourceContent, {})).toBe(4);

    expect((await cli('purge')).stdout).toBe(
      'purged 4 entities: 3 sources, 1 translations, 1 tombstones, 1 reports\n',
    );

    const em = orm.em.fork();
    expect((await em.find(SourceContent, {})).map((s) => `${s.entityType}/${s.entityId}`)).toEqual([
      'vendor/v-1',
    ]);
    expect(
      (await em.find(ContentTranslation, {}, { orderBy: { entityType: 'asc' } })).map((t) => t.entityType),
    ).toEqual(['text', 'vendor']);
    expect(await em.count(ContentDeletion, {})).toBe(0);
    expect(await em.count(ContentReport, {})).toBe(0);
    expect(await findInvalidContent(orm)).toEqual([]);
  });

  it('purges nothing when there is nothing to purge', async () => {
    expect(await purgeInvalidContent(orm, [])).toEqual({
      sources: 0,
      translations: 0,
      tombstones: 0,
      reports: 0,
    });
  });
});
