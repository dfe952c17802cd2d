import { describe, expect, it, jest } from '@jest/globals';
import type { Orm } from '@tp/db';
import { initTracing, withSpan, type Logger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import { Registry } from 'prom-client';

import { CompletedTranslationsOutbox } from './completed-translations.outbox.js';

const completed = {
  text: 'Good morning',
  source: 'en',
  target: 'fr',
  translatedText: 'Bonjour',
  engine: 'deepl',
  truncated: false,
  fallback: false,
};

/**
 * An Orm whose forks send their statements to `run`: insertOutboxRows binds its values
 * (executeBound), which runs a compiled query on the fork's Kysely client.
 */
const ormRunning = (run: (sql: string, params: readonly unknown[]) => Promise<void>) =>
  ({
    em: {
      fork: () => ({
        config: { getLogger: () => ({ isEnabled: () => false }) },
        getDriver: () => ({ convertException: (err: Error) => err }),
        getKysely: () => ({
          executeQuery: async ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }) => {
            await run(sql, parameters);
            return { rows: [] };
          },
        }),
      }),
    },
  }) as unknown as Orm;

/** An outbox whose statements are kept, its linger longer than any test: only drain() writes. */
function heldOutbox() {
  const statements: (readonly unknown[])[] = [];
  const codec = new EventCodec();
  const outbox = new CompletedTranslationsOutbox({
    orm: ormRunning(async (_sql, params) => void statements.push(params)),
    codec,
    topicPrefix: '',
    logger: { error: jest.fn() } as unknown as Logger,
    lingerMs: 3_600_000,
  });
  return { outbox, statements, codec };
}

describe('CompletedTranslationsOutbox', () => {
  it('logs and counts a failed outbox write instead of throwing it at the request', async () => {
    const orm = ormRunning(() => Promise.reject(new Error('connection refused')));
    const error = jest.fn();
    const metrics = new Registry();
    const outbox = new CompletedTranslationsOutbox({
      orm,
      codec: new EventCodec(),
      topicPrefix: '',
      logger: { error } as unknown as Logger,
      metrics,
    });

    expect(() => outbox.record([completed], { correlationId: 'c', causationId: 'r' })).not.toThrow();
    await outbox.drain();

    expect(error).toHaveBeenCalledTimes(1);
    const failures = await metrics.getSingleMetric('translation_outbox_failures_total')?.get();
    expect(failures?.values[0]?.value).toBe(1);
  });

  it("carries a request's translations of one pair in one event, each text under its own entity", async () => {
    const { outbox, statements, codec } = heldOutbox();
    const texts = Array.from({ length: 103 }, (_, n) => ({ ...completed, text: `Good morning ${n}` }));
    // 103 texts into fr and one into de: 100 a most an event carries, and one pair an event.
    outbox.record([...texts, { ...completed, target: 'de', translatedText: 'Guten Morgen' }], {
      correlationId: 'c',
      causationId: 'r',
    });
    // One translation longer than an event's bytes of text travels alone.
    const long = 'Bonjour. '.repeat(15_000);
    outbox.record([{ ...completed, translatedText: long }, texts[0] as typeof completed], {
      correlationId: 'c2',
      causationId: 'r2',
    });
    await outbox.drain();

    const [params] = statements;
    const payloads = params?.[4] as Buffer[];
    const headers = JSON.parse(params?.[5] as string) as Record<string, string>[];
    const events = payloads.map((value, i) => codec.decode(value, headers[i] ?? {}));
    const data = events.map((event) => (event.eventType === 'TranslationCompleted' ? event.data : undefined));
    expect(data.map((d) => [d?.targetLang, 1 + (d?.moreResults.length ?? 0)])).toEqual([
      ['fr', 100],
      ['fr', 3],
      ['de', 1],
      ['fr', 1],
      ['fr', 1],
    ]);
    const [first] = data;
    const entities = [first?.entityId, ...(first?.moreResults ?? []).map((result) => result.entityId)];
    expect(new Set(entities).size).toBe(100);
    expect(first?.entityType).toBe('text');
  });

  it('leaves out a translation the store cannot hold (U+0000), logged and counted, and keeps the others', async () => {
    const statements: (readonly unknown[])[] = [];
    const error = jest.fn();
    const metrics = new Registry();
    const codec = new EventCodec();
    const outbox = new CompletedTranslationsOutbox({
      orm: ormRunning(async (_sql, params) => void statements.push(params)),
      codec,
      topicPrefix: '',
      logger: { error } as unknown as Logger,
      metrics,
    });
    outbox.record(
      [
        { ...completed, translatedText: 'Bon\u0000jour' },
        { ...completed, text: 'Hello' },
      ],
      {
        correlationId: 'c',
        causationId: 'r',
      },
    );
    await outbox.drain();

    expect(error).toHaveBeenCalledTimes(1);
    const failures = await metrics.getSingleMetric('translation_outbox_failures_total')?.get();
    expect(failures?.values[0]?.value).toBe(1);
    const [params] = statements;
    const headers = JSON.parse(params?.[5] as string) as Record<string, string>[];
    const [event] = (params?.[4] as Buffer[]).map((value, i) => codec.decode(value, headers[i] ?? {}));
    expect(event?.eventType === 'TranslationCompleted' && event.data).toMatchObject({
      translatedText: 'Bonjour',
      moreResults: [],
    });
  });

  it('drain() waits for writes still in flight', async () => {
    let finish: () => void = () => undefined;
    const orm = ormRunning(() => new Promise<void>((resolve) => (finish = resolve)));
    const outbox = new CompletedTranslationsOutbox({
      orm,
      codec: new EventCodec(),
      topicPrefix: '',
      logger: { error: jest.fn() } as unknown as Logger,
    });
    outbox.record([completed], { correlationId: 'c', causationId: 'r' });
    let drained = false;
    const draining = outbox.drain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    finish();
    await draining;
    expect(drained).toBe(true);
  });

  it('writes the rows recorded while a write runs with one next statement (group commit)', async () => {
    const statements: { sql: string; params: readonly unknown[] }[] = [];
    let finishFirst: () => void = () => undefined;
    const orm = ormRunning((sql, params) => {
      statements.push({ sql, params });
      return statements.length === 1
        ? new Promise<void>((resolve) => (finishFirst = resolve))
        : Promise.resolve();
    });
    const outbox = new CompletedTranslationsOutbox({
      orm,
      codec: new EventCodec(),
      topicPrefix: '',
      logger: { error: jest.fn() } as unknown as Logger,
    });
    outbox.record([completed], { correlationId: 'c1', causationId: 'r1' });
    for (const n of [2, 3, 4]) {
      outbox.record([{ ...completed, text: `Good morning ${n}` }], {
        correlationId: `c${n}`,
        causationId: `r${n}`,
      });
    }
    expect(statements).toHaveLength(1);
    finishFirst();
    await outbox.drain();

    expect(statements).toHaveLength(2);
    // One array per column: the first statement carries one row, the second the three recorded meanwhile.
    expect(statements.map(({ params }) => (params[0] as unknown[]).length)).toEqual([1, 3]);
  });

  it('with a linger, holds the rows recorded meanwhile for one statement, which drain() writes at once', async () => {
    const statements: (readonly unknown[])[] = [];
    const outbox = new CompletedTranslationsOutbox({
      orm: ormRunning(async (_sql, params) => void statements.push(params)),
      codec: new EventCodec(),
      topicPrefix: '',
      logger: { error: jest.fn() } as unknown as Logger,
      // Longer than any test: only drain() can end it.
      lingerMs: 3_600_000,
    });
    for (const n of [1, 2, 3]) {
      outbox.record([{ ...completed, text: `Good evening ${n}` }], {
        correlationId: `c${n}`,
        causationId: `r${n}`,
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toHaveLength(0);

    await outbox.drain();
    expect(statements.map((params) => (params[0] as unknown[]).length)).toEqual([3]);
    // Nothing held: a drain with an empty queue writes nothing.
    await outbox.drain();
    expect(statements).toHaveLength(1);
  });

  it('encodes an event when it is written, in the trace context and with the time of the request', async () => {
    // W3C propagation and an async-local context, nothing exported (as a service without an endpoint).
    initTracing('translator', {}, {});
    const { outbox, statements, codec } = heldOutbox();
    const recordedBy = Date.now();
    const traceId = await withSpan('POST /translate', {}, (span) => {
      outbox.record([completed], { correlationId: 'c', causationId: 'r' });
      return span.spanContext().traceId;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));

    await outbox.drain();
    const [params] = statements;
    const [headers] = JSON.parse(params?.[5] as string) as Record<string, string>[];
    expect(headers?.traceparent).toContain(traceId);
    const event = codec.decode((params?.[4] as Buffer[])[0] as Buffer, headers ?? {});
    const data = event.eventType === 'TranslationCompleted' ? event.data : undefined;
    expect(data?.requestedAt).toBeGreaterThanOrEqual(recordedBy);
    expect(data?.requestedAt).toBeLessThan(recordedBy + 20);
  });
});
