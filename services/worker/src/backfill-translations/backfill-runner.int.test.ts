import { randomUUID } from 'node:crypto';

import { LockMode } from '@mikro-orm/core';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { TranslationRequested } from '@tp/contracts';
import {
  connectDatabase,
  ContentTranslation,
  OutboxMessage,
  SourceContent,
  TranslationBackfill,
  TranslationConfig,
  type Orm,
} from '@tp/db';
import {
  DeadLetterIndex,
  backfillView,
  endBackfills,
  findBackfill,
  requestedFields,
  sourceHash,
  startBackfill,
  type Backfill,
} from '@tp/pipeline';
import { createLogger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import { Registry } from 'prom-client';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { BackfillRunner } from './backfill-runner.js';
import { BACKFILL_LIMITS } from './backfill-step.js';

const codec = new EventCodec();
let db: TestDatabase;
let orm: Orm;
let metrics: Registry;
let runner: BackfillRunner;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

beforeEach(async () => {
  const em = orm.em.fork();
  await em.nativeDelete(TranslationBackfill, {});
  await em.nativeDelete(OutboxMessage, {});
  await em.nativeDelete(ContentTranslation, {});
  await em.nativeDelete(SourceContent, {});
  await setTargets(['es', 'ca']);
  metrics = new Registry();
  runner = newRunner(metrics);
});

const newRunner = (registry?: Registry) =>
  new BackfillRunner({
    orm,
    codec,
    topicPrefix: 'bf',
    logger: createLogger('worker', 'silent'),
    ...(registry ? { metrics: registry } : {}),
  });

async function setTargets(targetLanguages: string[]): Promise<void> {
  await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages, enabled: true });
}

/** `entities` entities of `fields` English fields each, under module shop, type `type`. */
async function seed(
  type: string,
  entities: number,
  fields: number,
  sourceLang = 'en',
  plannedAt: Date | null = null,
): Promise<void> {
  const rows = [];
  for (let e = 0; e < entities; e++) {
    for (let f = 0; f < fields; f++) {
      const text = `${type} ${e} field ${f}`;
      rows.push({
        module: 'shop',
        entityType: type,
        entityId: `id-${String(e).padStart(5, '0')}`,
        field: `f${f}`,
        sourceLang,
        text,
        sourceHash: sourceHash(text),
        sourceVersion: 1,
        format: 'text',
        plannedAt,
        updatedAt: new Date(),
      });
    }
  }
  await orm.em.fork().insertMany(SourceContent, rows);
}

/** Every field the outbox requests, as entity/field/language, in order. */
async function requested(): Promise<string[]> {
  const rows = await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
  return rows.flatMap((row) => {
    const event = codec.decode(Buffer.from(row.payload), row.headers) as TranslationRequested;
    return requestedFields(event.data).map(
      (f) => `${event.data.entityType}/${event.data.entityId}/${f.field}/${event.data.targetLang}`,
    );
  });
}

/** Stores the translation of each requested field, as the projection would. */
async function answer(fields: readonly string[]): Promise<void> {
  const rows = fields.map((key) => {
    const [entityType = '', entityId = '', field = '', targetLang = ''] = key.split('/');
    return {
      entityType,
      entityId,
      field,
      targetLang,
      sourceLang: 'en',
      translatedText: `${key} translated`,
      sourceHash: 'h'.repeat(64),
      sourceVersion: 1,
      engine: 'apertium',
      lastEventId: randomUUID(),
      createdAt: new Date(),
      updatedAt: new Date(),
    };
  });
  if (rows.length > 0) await orm.em.fork().insertMany(ContentTranslation, rows);
}

async function start(language: string, filters: { module?: string; entityType?: string } = {}) {
  return orm.em.fork().transactional((em) => startBackfill(em, { language, ...filters, origin: 'operator' }));
}

const reload = async (job: Backfill) => (await findBackfill(orm.em.fork(), job.id)) as Backfill;

describe('a backfill', () => {
  it('requests each field lacking the language once, skips stored ones and fields already in it, and is done when every row is stored', async () => {
    await seed('vendor', 3, 2);
    await seed('dish', 1, 2, 'ca');
    await answer(['vendor/id-00001/f0/ca']);
    const { backfill } = await start('ca');
    expect(backfill.total).toBe(5);

    await runner.tick();
    const asked = await requested();
    expect(asked.sort()).toEqual([
      'vendor/id-00000/f0/ca',
      'vendor/id-00000/f1/ca',
      'vendor/id-00001/f1/ca',
      'vendor/id-00002/f0/ca',
      'vendor/id-00002/f1/ca',
    ]);
    await runner.tick();
    expect(await requested()).toHaveLength(5);
    expect((await reload(backfill)).status).toBe('running');

    await answer(asked.slice(0, 3));
    await runner.tick();
    expect(backfillView(await reload(backfill))).toMatchObject({ done: 3, remaining: 2, status: 'running' });
    await answer(asked.slice(3));
    await runner.tick();
    const ended = await reload(backfill);
    expect(backfillView(ended)).toMatchObject({ status: 'done', done: 5, failed: 0, remaining: 0 });
    expect(ended.finishedAt).not.toBeNull();
    expect(await requested()).toHaveLength(5);
  });

  it('leaves alone the fields the planner requested after it was created, and counts only its own', async () => {
    await seed('vendor', 1, 2, 'en', new Date(Date.now() - 60_000));
    const { backfill } = await start('ca');
    await runner.tick();
    expect((await requested()).sort()).toEqual(['vendor/id-00000/f0/ca', 'vendor/id-00000/f1/ca']);
    const seen = (await reload(backfill)).sourcesBefore as Date;
    // Stored later: `wine` by a planner that requested its translations (ca among them), `zone`
    // with translation disabled (nothing requested, so the backfill's to ask).
    await seed('wine', 1, 2, 'en', new Date(seen.getTime() + 1000));
    await seed('zone', 1, 1, 'en', null);
    await runner.tick();
    expect((await requested()).sort()).toEqual([
      'vendor/id-00000/f0/ca',
      'vendor/id-00000/f1/ca',
      'zone/id-00000/f0/ca',
    ]);
    expect((await reload(backfill)).sourcesBefore).toEqual(seen);
    await answer(['vendor/id-00000/f0/ca', 'vendor/id-00000/f1/ca', 'zone/id-00000/f0/ca']);
    await runner.tick();
    expect(backfillView(await reload(backfill))).toMatchObject({ status: 'done', done: 3, remaining: 0 });
  });

  it('keeps to its filters: only the module and entity type asked for', async () => {
    await seed('vendor', 2, 1);
    await seed('dish', 2, 1);
    await start('es', { module: 'shop', entityType: 'dish' });
    await runner.tick();
    expect((await requested()).sort()).toEqual(['dish/id-00000/f0/es', 'dish/id-00001/f0/es']);
  });

  it('requests at most the tick budget of whole entities, and nothing more while the in-flight bound is reached', async () => {
    const entities = (BACKFILL_LIMITS.maxInFlight + BACKFILL_LIMITS.fieldsPerTick) / 4;
    await seed('vendor', entities, 4);
    await start('es');
    await runner.tick();
    expect(await requested()).toHaveLength(BACKFILL_LIMITS.fieldsPerTick);
    const ticks = BACKFILL_LIMITS.maxInFlight / BACKFILL_LIMITS.fieldsPerTick;
    for (let i = 1; i < ticks + 2; i++) await runner.tick();
    const inFlight = await requested();
    expect(inFlight).toHaveLength(BACKFILL_LIMITS.maxInFlight);

    await answer(inFlight.slice(0, BACKFILL_LIMITS.fieldsPerTick));
    await runner.tick();
    expect(await requested()).toHaveLength(BACKFILL_LIMITS.maxInFlight + BACKFILL_LIMITS.fieldsPerTick);
  });

  it('never cuts an entity: one with more fields than the budget goes whole, and the cursor moves past it', async () => {
    await seed('vendor', 1, BACKFILL_LIMITS.fieldsPerTick + 5);
    await seed('wine', 1, 1);
    await start('es');
    await runner.tick();
    expect(await requested()).toHaveLength(BACKFILL_LIMITS.fieldsPerTick + 5);
    await runner.tick();
    expect((await requested()).slice(-1)).toEqual(['wine/id-00000/f0/es']);
  });

  it('continues from its cursor after a restart: a new runner requests nothing twice and nothing is skipped', async () => {
    // 120 fields: four ticks of whole entities within the tick budget (39 fields each, then 3), less
    // than the in-flight bound; a new runner for every tick after the first, and one tick more.
    const fields = 3 * BACKFILL_LIMITS.fieldsPerTick;
    await seed('vendor', BACKFILL_LIMITS.fieldsPerTick, 3);
    await start('es');
    await runner.tick();
    for (let i = 0; i < Math.ceil(fields / (BACKFILL_LIMITS.fieldsPerTick - 3)); i++)
      await newRunner().tick();
    const asked = await requested();
    expect(asked).toHaveLength(fields);
    expect(new Set(asked).size).toBe(fields);
  });

  it('counts a dead-lettered request as failed, and finishes with the rest stored', async () => {
    await seed('vendor', 2, 1);
    const { backfill } = await start('es');
    await runner.tick();
    const [first, second] = await requested();
    await answer([first as string]);
    const index = new DeadLetterIndex(orm);
    await index.add({
      eventId: randomUUID(),
      originalTopic: 'bf.translation.requested.v1',
      originalPartition: 0,
      originalOffset: 7,
      messageKey: null,
      payload: Buffer.from('x'),
      headers: { 'tp-causation-id': backfill.id, 'tp-correlation-id': backfill.id },
      consumerGroup: 'translator',
      errorCode: 'ENGINE_FAILED',
      errorMessage: `could not translate ${second}`,
      attempts: 3,
      failedAt: new Date(),
    });
    await runner.tick();
    await runner.tick();
    expect(backfillView(await reload(backfill))).toMatchObject({ status: 'done', done: 1, failed: 1 });
  });

  it('stops when its language leaves the configuration, and requests nothing more', async () => {
    await seed('vendor', 300, 1);
    const { backfill } = await start('ca');
    await runner.tick();
    await setTargets(['es']);
    await runner.tick();
    const ended = await reload(backfill);
    expect(ended.status).toBe('stopped');
    expect(await requested()).toHaveLength(BACKFILL_LIMITS.fieldsPerTick);
  });

  it('and a configuration change that removes its language while a tick holds it both commit (no deadlock)', async () => {
    await seed('vendor', 2, 1);
    const { backfill } = await start('ca');
    // The change's transaction as the admin route runs it: the configuration row first, then the
    // removed language's backfills.
    const change = orm.em.fork();
    await change.begin();
    await change.findOne(TranslationConfig, { id: 1 }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const tick = runner.tick();
    // The tick locks its backfills meanwhile (it is done, or waiting, by then).
    await Promise.race([tick, new Promise((resolve) => setTimeout(resolve, 500))]);
    const ended = change
      .nativeUpdate(TranslationConfig, { id: 1 }, { targetLanguages: ['es'] })
      .then(() => endBackfills(change, 'stopped', { languagesKept: ['es'] }))
      .then(() => change.commit());
    const outcomes = await Promise.allSettled([tick, ended]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((await reload(backfill)).status).toBe('stopped');
  });

  it('waits while translation is switched off, and goes on once it is on again', async () => {
    await seed('vendor', 2, 1);
    const { backfill } = await start('ca');
    await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { enabled: false });
    await runner.tick();
    expect(await requested()).toEqual([]);
    expect((await reload(backfill)).status).toBe('running');
    await orm.em.fork().nativeUpdate(TranslationConfig, { id: 1 }, { enabled: true });
    await runner.tick();
    expect((await requested()).sort()).toEqual(['vendor/id-00000/f0/ca', 'vendor/id-00001/f0/ca']);
  });

  it('requests nothing more once cancelled', async () => {
    await seed('vendor', 300, 1);
    const { backfill } = await start('ca');
    await runner.tick();
    const [cancelled] = await orm.em.fork().transactional((em) => endBackfills(em, 'cancelled', backfill));
    expect(cancelled?.status).toBe('cancelled');
    await runner.tick();
    expect(await requested()).toHaveLength(BACKFILL_LIMITS.fieldsPerTick);
  });

  it('answers the running backfill of the same scope instead of starting another', async () => {
    await seed('vendor', 1, 1);
    const first = await start('es');
    const again = await start('es');
    expect(again).toEqual({ backfill: first.backfill, created: false });
    expect((await start('es', { entityType: 'vendor' })).created).toBe(true);
  });

  it('refuses a language that is not configured, an unknown one, and filters matching nothing', async () => {
    await seed('vendor', 1, 1);
    await expect(start('de')).rejects.toMatchObject({ code: 'LANGUAGE_NOT_CONFIGURED' });
    await expect(start('xx-nope')).rejects.toMatchObject({ code: 'UNSUPPORTED_LANGUAGE' });
    await expect(start('es', { module: 'nobody' })).rejects.toMatchObject({ code: 'ENTITY_NOT_FOUND' });
    await expect(start('es', { entityType: 'ghost' })).rejects.toMatchObject({ code: 'ENTITY_NOT_FOUND' });
  });

  it('reports its progress in the metrics', async () => {
    await seed('vendor', 4, 1);
    await start('es');
    await runner.tick();
    await answer((await requested()).slice(0, 1));
    await runner.tick();
    const text = await metrics.metrics();
    expect(text).toContain('translation_backfill_requested_total{language="es"} 4');
    expect(text).toContain('translation_backfill_fields{language="es",state="done"} 1');
    expect(text).toContain('translation_backfill_fields{language="es",state="in_flight"} 3');
    expect(text).toContain('translation_backfill_fields{language="es",state="remaining"} 3');
  });
});
