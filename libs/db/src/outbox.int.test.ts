import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { connectDatabase, type Orm } from './orm.js';
import { insertOutboxRows } from './outbox.js';

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

describe('insertOutboxRows', () => {
  it('stores every row as given, its ids in the order of the rows', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({
      values: [
        randomUUID(),
        'TranslationRequested',
        'translation.requested.v1',
        i % 3 === 0 ? null : `catalog:"e${i}"\\`,
        Buffer.from([i % 256, 0, 0x22, 0x5c, 0x7b, 0xff]),
        JSON.stringify({ traceparent: `00-${i}`, quote: 'a "b" \\ c' }),
      ],
    }));
    await insertOutboxRows(orm.em.fork(), rows);
    const stored = await orm.em
      .fork()
      .getConnection()
      .execute<{ event_id: string; message_key: string | null; payload: Buffer; headers: unknown }[]>(
        'select event_id, message_key, payload, headers from outbox order by id',
      );
    expect(stored).toEqual(
      rows.map(({ values: [eventId, , , key, payload, headers] }) => ({
        event_id: eventId,
        message_key: key,
        payload,
        headers: JSON.parse(headers as string) as unknown,
      })),
    );
  });
});
