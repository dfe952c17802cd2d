import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as deepl from 'deepl-node';
import { translate as libreTranslate } from 'libretranslate';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';

// DeepL's official Node client (deepl-node) and an npm LibreTranslate client (libretranslate), unchanged,
// pointed at a real gateway and translator with the real Apertium (no online engine, no double on our
// side of the wire). Real Kafka, Postgres and Redis.
let db: TestDatabase;
const prefix = uniquePrefix('e2e-compat');
const running = new Map<string, ServiceProcess>();
let gateway: string;
let clientKey: string;
let adminKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await createTopics(testKafka('e2e-compat'), prefix);
  const ports = { translator: await freePort(), gateway: await freePort() };
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_KEY_PREFIX: `${prefix}:`,
    APERTIUM_URL: process.env.APERTIUM_URL,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: 'http://127.0.0.1:9',
    NLI_URL: 'http://127.0.0.1:9',
  };
  for (const [name, port] of Object.entries(ports)) running.set(name, runService(name, env, port));
  for (const [name, proc] of running) await waitForHealth(name, proc);
  gateway = running.get('gateway')!.url;
  [clientKey, adminKey] = await Promise.all([
    createKeyWithCli(db.url, 'client'),
    createKeyWithCli(db.url, 'admin'),
  ]);
}, 150_000);

afterAll(async () => {
  for (const proc of running.values()) proc.child.kill('SIGKILL');
  await db?.drop();
});

/** deepl-node as an integration uses it, pointed at the gateway; no retries, so a failure shows at once. */
const deeplClient = (key: string) => new deepl.Translator(key, { serverUrl: gateway, maxRetries: 0 });

/** A client key with a monthly character budget, made through the admin API. */
async function keyWithBudget(characters: number): Promise<string> {
  const res = await fetch(`${gateway}/api/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'client', name: 'deepl budget', characters_per_month: characters }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { key: string } }).data.key;
}

describe('deepl-node against the gateway', () => {
  it('translates one text, detecting its language (Apertium en -> es)', async () => {
    const result = await deeplClient(clientKey).translateText('Good morning, my friend.', null, 'es');
    expect(result.text).toBe('Buenos días, mi amigo.');
    expect(result.detectedSourceLang).toBe('en');
    expect(result.billedCharacters).toBe('Good morning, my friend.'.length);
  });

  it('translates several texts in their order, with the source named', async () => {
    const results = await deeplClient(clientKey).translateText(
      ['Good morning.', 'The house is big.'],
      'en',
      'es',
    );
    expect(results.map((r) => r.text)).toEqual(['Buenos días.', 'La casa es grande.']);
    expect(results.map((r) => r.detectedSourceLang)).toEqual(['en', 'en']);
  });

  it('keeps the tags of HTML with tagHandling html', async () => {
    const result = await deeplClient(clientKey).translateText('<p>The house is <b>big</b>.</p>', 'en', 'es', {
      tagHandling: 'html',
    });
    expect(result.text).toMatch(/^<p>La casa es <b>grande<\/b>\.<\/p>$/);
  });

  it('accepts formality, which Apertium has no way to apply (the translation is the same)', async () => {
    const result = await deeplClient(clientKey).translateText('The house is big.', 'en', 'es', {
      formality: 'prefer_more',
    });
    expect(result.text).toBe('La casa es grande.');
  });

  it('lists source and target languages in DeepL codes, as the engines serve them now', async () => {
    const client = deeplClient(clientKey);
    const sources = await client.getSourceLanguages();
    const targets = await client.getTargetLanguages();
    expect(sources.map((l) => l.code)).toEqual(expect.arrayContaining(['en', 'es', 'fr', 'zh']));
    expect(targets.map((l) => l.code)).toEqual(expect.arrayContaining(['en-GB', 'en-US', 'es', 'pt-BR']));
    // No DeepL engine here: no target applies formality.
    expect(targets.every((l) => l.supportsFormality === false)).toBe(true);
    // Japanese has no engine on this set-up.
    expect(sources.map((l) => l.code)).not.toContain('ja');
  });

  it('creates, lists, uses and deletes a glossary (an admin key writes, any key reads)', async () => {
    const admin = deeplClient(adminKey);
    const created = await admin.createGlossary(
      'friends',
      'en',
      'es',
      new deepl.GlossaryEntries({ entries: { friend: 'compadre' } }),
    );
    expect(created).toMatchObject({ name: 'friends', sourceLang: 'en', targetLang: 'es', entryCount: 1 });
    const client = deeplClient(clientKey);
    expect((await client.listGlossaries()).map((g) => g.glossaryId)).toContain(created.glossaryId);
    expect((await client.getGlossaryEntries(created.glossaryId)).entries()).toEqual({ friend: 'compadre' });
    // glossary_id names the pair's glossary, which the platform applies to every translation of the pair.
    const used = await client.translateText('My friend reads the book.', 'en', 'es', { glossary: created });
    expect(used.text).toMatch(/^Mi (amigo|compadre) lee el libro\.$/);
    await expect(
      client.translateText('My friend reads the book.', 'en', 'fr', { glossary: created }),
    ).rejects.toBeInstanceOf(deepl.DeepLError);
    await admin.deleteGlossary(created);
    await expect(client.getGlossary(created.glossaryId)).rejects.toBeInstanceOf(deepl.GlossaryNotFoundError);
  });

  it('throws AuthorizationError for a key that is not valid', async () => {
    await expect(
      deeplClient(`tp_${'A'.repeat(43)}`).translateText('Hello', null, 'es'),
    ).rejects.toBeInstanceOf(deepl.AuthorizationError);
  });
  it('reports the key’s usage this month', async () => {
    const key = await keyWithBudget(1000);
    const client = deeplClient(key);
    // A text no earlier test translated: a hot-cache hit is not counted against the budget.
    await client.translateText('The cat sleeps.', 'en', 'es');
    const usage = await client.getUsage();
    expect(usage.character?.count).toBe('The cat sleeps.'.length);
    expect(usage.character?.limit).toBe(1000);
  });

  it('throws QuotaExceededError once the key’s monthly characters are spent', async () => {
    const client = deeplClient(await keyWithBudget(10));
    await expect(client.translateText('The house is very big.', 'en', 'es')).rejects.toBeInstanceOf(
      deepl.QuotaExceededError,
    );
  });
});

describe('an npm LibreTranslate client against the gateway', () => {
  it('translates through /languages (which it checks the codes against) and /translate', async () => {
    const text = await libreTranslate({
      query: 'Good morning, my friend.',
      source: 'en',
      target: 'es',
      apiurl: gateway,
    });
    expect(text).toBe('Buenos días, mi amigo.');
  });

  it('sends its key as apiKey, which counts as that key', async () => {
    const text = await libreTranslate({
      query: 'The house is big.',
      source: 'auto',
      target: 'es',
      apiurl: gateway,
      apiKey: clientKey,
    });
    expect(text).toBe('La casa es grande.');
    await expect(
      libreTranslate({ query: 'Hello', source: 'en', target: 'es', apiurl: gateway, apiKey: 'nonsense' }),
    ).resolves.toBeUndefined(); // The client returns translatedText of the 403 body: there is none.
  });
});

// The `libretranslate` package has no detect call: /detect and the wire details its clients (browser
// extensions, LibreTranslate's own front-end) rely on are spoken here as LibreTranslate documents them.
describe('LibreTranslate’s wire format', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('detects a language with a confidence in percent', async () => {
    const res = await post('/detect', { q: 'Buenos días, mi amigo, la casa es grande.' });
    expect(res.status).toBe(200);
    const [best] = (await res.json()) as { language: string; confidence: number }[];
    expect(best?.language).toBe('es');
    expect(best?.confidence).toBeGreaterThan(50);
  });

  it('translates a list of texts, names the detected language and answers alternatives empty', async () => {
    const res = await post('/translate', {
      q: ['Good morning.', 'The house is big.'],
      source: 'auto',
      target: 'es',
      alternatives: 2,
    });
    expect(await res.json()).toEqual({
      translatedText: ['Buenos días.', 'La casa es grande.'],
      detectedLanguage: [
        { language: 'en', confidence: 100 },
        { language: 'en', confidence: 100 },
      ],
      alternatives: [[], []],
    });
  });

  it('translates a form body and HTML', async () => {
    const res = await fetch(`${gateway}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        q: '<p>The house is <b>big</b>.</p>',
        source: 'en',
        target: 'es',
        format: 'html',
      }),
    });
    expect(await res.json()).toEqual({ translatedText: '<p>La casa es <b>grande</b>.</p>' });
  });

  it('lists languages with their targets in its codes (zh-Hans, zh-Hant)', async () => {
    const languages = (await (await fetch(`${gateway}/languages`)).json()) as {
      code: string;
      targets: string[];
    }[];
    expect(languages.find((l) => l.code === 'en')?.targets).toEqual(expect.arrayContaining(['es', 'ca']));
    expect(languages.find((l) => l.code === 'zh-Hans')?.targets).toEqual(['zh-Hant']);
  });

  it('answers an unsupported pair 400 with {error}', async () => {
    const res = await post('/translate', { q: 'Hello', source: 'en', target: 'ja' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: expect.any(String), code: 'UNSUPPORTED_LANGUAGE_PAIR' });
  });
});
