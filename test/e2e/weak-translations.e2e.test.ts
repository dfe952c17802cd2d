// No silent half-translations (issue #19), as processes: one gateway, one worker, one translator whose
// engines are the MyMemory double (the `fallback` slot, which cuts at 500 characters) and the
// LibreTranslate double (the `local` slot, a whole-text engine). While LibreTranslate is down, a long
// field can only be translated truncated; a read flags it and requests it again, and once
// LibreTranslate is back the whole translation replaces the truncated row. While MyMemory is down, a
// field is translated by LibreTranslate, a later slot: a fallback result, flagged and replaced by
// MyMemory's once it is back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ContentTranslation } from '@tp/db';

import {
  libreTranslateFaults,
  startLibreTranslateDouble,
  type LibreTranslateDouble,
} from '../doubles/libretranslate.double.js';
import { mymemoryFaults, startMyMemoryDouble, type MyMemoryDouble } from '../doubles/mymemory.double.js';
import { createTopics, testBrokers, testKafka, uniquePrefix } from '../harness/kafka.js';
import { startPipelineStack, type PipelineStack } from '../harness/pipeline-stack.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('weak');
let libre: LibreTranslateDouble;
let mymemory: MyMemoryDouble;
let stack: PipelineStack;

beforeAll(async () => {
  await createTopics(testKafka('weak-e2e'), prefix);
  libre = await startLibreTranslateDouble();
  mymemory = await startMyMemoryDouble();
  stack = await startPipelineStack({
    kafkaBrokers: testBrokers().join(','),
    topicPrefix: prefix,
    libreTranslateUrl: libre.url,
    workers: 1,
    translators: 1,
    env: {
      MYMEMORY_URL: mymemory.url,
      APERTIUM_URL: '',
      // A read may request a field again one second after the last request of it.
      CONTENT_REQUEST_THROTTLE_S: '1',
    },
  });
  const config = await stack.call('PUT', '/api/admin/translate/config', stack.adminKey, {
    target_languages: ['es'],
  });
  expect(config).toMatchObject({ status: 200 });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await libre?.close();
  await mymemory?.close();
}, 60_000);

interface Row {
  readonly engine: string;
  readonly truncated: boolean;
  readonly fallback: boolean;
  readonly translated_text: string;
}

async function row(id = 'd-1'): Promise<Row | undefined> {
  const found = await stack.orm.em.fork().findOne(ContentTranslation, { entityType: 'doc', entityId: id });
  if (!found) return undefined;
  const { engine, truncated, fallback, translatedText } = found;
  return { engine, truncated, fallback, translated_text: translatedText };
}

async function read(id = 'd-1') {
  const res = await fetch(`${stack.processes.get('gateway')?.url}/api/v1/content/doc/${id}?meta=true`, {
    headers: { authorization: `Bearer ${stack.clientKey}`, 'x-language': 'es' },
  });
  return (await res.json()) as {
    data: { fields: Record<string, string>; meta: Record<string, Record<string, unknown>> };
  };
}

describe('a truncated translation', () => {
  it('is flagged in the row and the read, requested again, and replaced by a whole one once a better engine is up', async () => {
    libre.fail(libreTranslateFaults.cannotTranslate(), { times: 1_000_000, path: '/translate' });
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20).trim();
    const reported = await stack.call('POST', '/api/v1/content/catalog/doc/d-1', stack.clientKey, {
      source_lang: 'en',
      source_version: 1,
      fields: { body: text },
    });
    expect(reported.status).toBe(202);
    await waitFor('the truncated row', async () => (await row())?.engine === 'mymemory', 60_000);
    expect(await row()).toMatchObject({ engine: 'mymemory', truncated: true });
    expect((await row())?.translated_text.length).toBeLessThan(text.length);

    libre.reset();
    const weak = await read();
    expect(weak.data.meta).toEqual({
      body: { language: 'es', origin: 'machine', engine: 'mymemory', truncated: true },
    });
    // That read requested the field again; the whole translation replaces the truncated row.
    await waitFor('the whole translation', async () => (await row())?.engine === 'libretranslate', 60_000);
    expect(await row()).toMatchObject({ truncated: false, translated_text: `[es] ${text}` });
    // The projection drops the entity's read-cache entry just after it writes the row: a read at
    // that instant may still get the cached view, so the test reads until the drop has happened.
    await waitFor(
      'the whole translation read',
      async () => (await read()).data.fields.body === `[es] ${text}`,
    );
    const whole = await read();
    expect(whole.data.fields.body).toBe(`[es] ${text}`);
    expect(whole.data.meta).toEqual({
      body: { language: 'es', origin: 'machine', engine: 'libretranslate' },
    });
  }, 120_000);
});

describe('a fallback translation', () => {
  it('is flagged in the row and the read, requested again, and replaced once the stronger engine is back', async () => {
    mymemory.fail(mymemoryFaults.serverError(), { times: 1_000_000, path: '/get' });
    const text = 'Fresh bread every morning.';
    const reported = await stack.call('POST', '/api/v1/content/catalog/doc/d-2', stack.clientKey, {
      source_lang: 'en',
      source_version: 1,
      fields: { body: text },
    });
    expect(reported.status).toBe(202);
    await waitFor('the fallback row', async () => (await row('d-2'))?.engine === 'libretranslate', 60_000);
    expect(await row('d-2')).toMatchObject({ fallback: true, truncated: false });

    mymemory.reset();
    const weak = await read('d-2');
    expect(weak.data.meta).toEqual({
      body: { language: 'es', origin: 'machine', engine: 'libretranslate', fallback: true },
    });
    // Reads request it again (throttled to one a second here); the translator reads past the cached
    // fallback result while MyMemory is healthy, and MyMemory's result replaces the row.
    await waitFor(
      "MyMemory's translation",
      async () => (await row('d-2'))?.engine === 'mymemory' || (await read('d-2'), false),
      60_000,
    );
    expect(await row('d-2')).toMatchObject({ fallback: false, translated_text: `[es] ${text}` });
    // As above: the read-cache entry is dropped just after the row is written.
    await waitFor(
      'the strong translation read',
      async () => (await read('d-2')).data.fields.body === `[es] ${text}`,
    );
    const strong = await read('d-2');
    expect(strong.data.meta).toEqual({ body: { language: 'es', origin: 'machine', engine: 'mymemory' } });
  }, 120_000);
});
