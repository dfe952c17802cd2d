import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { executeBound, MAX_BOUND_PARAMETERS, numberPlaceholders } from './bound.js';
import { connectDatabase, type Orm } from './orm.js';
import { OutboxMessage } from './entities/index.js';
import { insertOutboxRows } from './outbox/index.js';

let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  await orm.em
    .getConnection()
    .execute('create table bound_probe (id int primary key, payload bytea, note text, flag boolean)');
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

describe('numberPlaceholders', () => {
  it('numbers the question marks in order', () => {
    expect(numberPlaceholders('select ? as a, ?::jsonb as b where x = ?', 3)).toBe(
      'select $1 as a, $2::jsonb as b where x = $3',
    );
  });

  it('refuses a statement whose placeholders do not match its parameters', () => {
    expect(() => numberPlaceholders('select ?', 2)).toThrow('1 placeholders for 2 parameters');
  });
});

describe('executeBound', () => {
  it('stores a Buffer byte for byte and reads the row back', async () => {
    const payload = Buffer.from([0, 1, 0x27, 0x5c, 0xff]);
    const result = await executeBound(
      orm.em.fork(),
      'insert into bound_probe (id, payload, note, flag) values (?, ?, ?, ?), (?, ?, ?, ?)',
      [1, payload, "it's ? $1", true, 2, null, null, false],
      'run',
    );
    expect(result.affectedRows).toBe(2);
    const rows = await executeBound<{
      id: number;
      payload: Buffer | null;
      note: string | null;
      flag: boolean;
    }>(
      orm.em.fork(),
      'select id, payload, note, flag from bound_probe where id = any(?::int[]) order by id',
      [[1, 2]],
      'all',
    );
    expect(rows).toEqual([
      { id: 1, payload, note: "it's ? $1", flag: true },
      { id: 2, payload: null, note: null, flag: false },
    ]);
  });

  it("runs on the caller's transaction, so a rollback takes its write back", async () => {
    await expect(
      orm.em.fork().transactional(async (em) => {
        await executeBound(em, 'insert into bound_probe (id) values (?)', [10], 'run');
        const [seen] = await executeBound<{ n: string }>(
          em,
          'select count(*) as n from bound_probe where id = ?',
          [10],
          'all',
        );
        expect(seen?.n).toBe('1');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const [after] = await executeBound<{ n: string }>(
      orm.em.fork(),
      'select count(*) as n from bound_probe where id = ?',
      [10],
      'all',
    );
    expect(after?.n).toBe('0');
  });

  it("throws MikroORM's driver exceptions, with the SQLSTATE", async () => {
    await executeBound(orm.em.fork(), 'insert into bound_probe (id) values (?)', [20], 'run');
    await expect(
      executeBound(orm.em.fork(), 'insert into bound_probe (id) values (?)', [20], 'run'),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    const error = await executeBound(orm.em.fork(), 'select ?::int', ['not a number'], 'all').catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(DriverException);
    expect((error as DriverException).code).toBe('22P02');
  });

  it('sends a statement beyond the parameter limit through em.execute, with the same result', async () => {
    const count = MAX_BOUND_PARAMETERS + 1;
    const params = Array.from({ length: count }, (_, i) => i);
    const [row] = await executeBound<{ n: number }>(
      orm.em.fork(),
      `select cardinality(array[${params.map(() => '?').join(', ')}]::int[]) as n`,
      params,
      'all',
    );
    expect(row?.n).toBe(count);
  });
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
        { traceparent: `00-${i}`, quote: 'a "b" \\ c', 'x-ü': '{"json": [1]}' },
      ] as const,
    }));
    await insertOutboxRows(orm.em.fork(), rows);
    const stored = (await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } })).map((row) => ({
      event_id: row.eventId,
      message_key: row.messageKey ?? null,
      payload: Buffer.from(row.payload),
      headers: row.headers,
    }));
    expect(stored).toEqual(
      rows.map(({ values: [eventId, , , key, payload, headers] }) => ({
        event_id: eventId,
        message_key: key,
        payload,
        headers,
      })),
    );
  });
});
