import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentTranslation, type Orm } from '@tp/db';
import { createLogger } from '@tp/runtime';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { TextTranslationExpiry } from './expire-text-translations.js';

let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

async function insert(entityType: string, entityId: string, updatedAt: Date): Promise<void> {
  await orm.em.fork().insert(ContentTranslation, {
    entityType,
    entityId,
    field: 'text',
    targetLang: 'en',
    sourceLang: 'zh-CN',
    translatedText: 'hello',
    sourceHash: 'a'.repeat(64),
    sourceVersion: 1,
    engine: 'offline',
    truncated: false,
    lastEventId: randomUUID(),
    createdAt: updatedAt,
    updatedAt,
  });
}

describe('TextTranslationExpiry', () => {
  it('deletes free-text translations older than the retention and nothing else', async () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const old = new Date(now.getTime() - 31 * 86_400_000);
    const recent = new Date(now.getTime() - 29 * 86_400_000);
    await insert('text', 'old-text', old);
    await insert('text', 'recent-text', recent);
    await insert('vendor', 'old-vendor', old);
    const expiry = new TextTranslationExpiry({
      orm,
      logger: createLogger('test', 'silent'),
      retentionDays: 30,
      intervalMs: 3_600_000,
    });
    expect(await expiry.runOnce(now)).toBe(1);
    const left = await orm.em.fork().find(ContentTranslation, {}, { orderBy: { entityId: 'asc' } });
    expect(left.map((row) => row.entityId)).toEqual(['old-vendor', 'recent-text']);
  });
});
