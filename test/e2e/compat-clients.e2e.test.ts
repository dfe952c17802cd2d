import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as deepl from 'deepl-node';
import { translate as libreTranslate } from 'libretranslate';

import { startDeepLDouble, type DeepLDouble } from '../doubles/deepl.double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';

// DeepL's official Node client (deepl-node) and an npm LibreTranslate client (libretranslate), unchanged,
// pointed at a real gateway and translator with the real Apertium (no online engine, no double on our
// side of the wire). Real Kafka, Postgres and Redis. A second stack translates through the DeepL
// double (after ENGINES.md) to show what reaches DeepL.
interface Stack {
  readonly gateway: string;
  readonly db: TestDatabase;
  readonly running: ServiceProcess[];
}

/** A gateway and a translator on a database and topics of their own; `engines` configures the translator. */
async function startStack(name: string, engines: NodeJS.ProcessEnv): Promise<Stack> {
  const db = await createTestDatabase();
  const prefix = uniquePrefix(name);
  await createTopics(testKafka(name), prefix);
  const ports = { translator: await freePort(), gateway: await freePort() };
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_KEY_PREFIX: `${prefix}:`,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    WORKER_URL: 'http://127.0.0.1:9',
    NLI_URL: 'http://127.0.0.1:9',
  };
  const running = [
    runService('translator', { ...env, ...engines }, ports.translator),
    runService('gateway', env, ports.gateway),
  ];
  await Promise.all(
    running.map((proc, index) => waitForHealth(index === 0 ? 'translator' : 'gateway', proc)),
  );
  return { gateway: running[1]!.url, db, running };
}

async function stopStack(stack: Stack | undefined): Promise<void> {
  for (const proc of stack?.running ?? []) proc.child.kill('SIGKILL');
  await stack?.db.drop();
}

let stack: Stack;
let gateway: string;
let clientKey: string;
let adminKey: string;

beforeAll(async () => {
  stack = await startStack('e2e-compat', { APERTIUM_URL: process.env.APERTIUM_URL });
  gateway = stack.gateway;
  [clientKey, adminKey] = await Promise.all([
    createKeyWithCli(stack.db.url, 'client'),
    createKeyWithCli(stack.db.url, 'admin'),
  ]);
}, 150_000);

afterAll(() => stopStack(stack));

/**
 * Past the time within which every process sees a glossary write (GLOSSARY_REFRESH_MS, 1 s, in the
 * gateway's and the translator's view of the glossaries), with room for a busy machine.
 */
const glossaryWriteApplied = () => new Promise((resolve) => setTimeout(resolve, 1500));

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
    await glossaryWriteApplied();
    const used = await client.translateText('My friend reads the book.', 'en', 'es', { glossary: created });
    expect(used.text).toBe('Mi compadre lee el libro.');
    // glossary_id names the pair's glossary; another pair's is refused.
    await expect(
      client.translateText('My friend reads the book.', 'en', 'fr', { glossary: created }),
    ).rejects.toBeInstanceOf(deepl.DeepLError);
    await admin.deleteGlossary(created);
    await expect(client.getGlossary(created.glossaryId)).rejects.toBeInstanceOf(deepl.GlossaryNotFoundError);
    await glossaryWriteApplied();
    expect((await client.translateText('My friend reads the book.', 'en', 'es')).text).toBe(
      'Mi amigo lee el libro.',
    );
  });

  it('applies a glossary written after a text was translated, and each edit of it, to that text', async () => {
    const client = deeplClient(clientKey);
    const text = 'Her friend writes a letter.';
    const translate = async () => (await client.translateText(text, 'en', 'es')).text;
    expect(await translate()).toBe('Su amigo escribe una letra.');
    const created = await deeplClient(adminKey).createGlossary(
      'letters',
      'en',
      'es',
      new deepl.GlossaryEntries({ entries: { friend: 'compadre' } }),
    );
    await glossaryWriteApplied();
    // Without glossary_id too: the pair's glossary applies to every translation of the pair.
    expect(await translate()).toBe('Su compadre escribe una letra.');
    const edited = await fetch(`${gateway}/api/admin/translate/glossaries/${created.glossaryId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ entries: [{ source: 'friend', target: 'colega' }] }),
    });
    expect(edited.status).toBe(200);
    await glossaryWriteApplied();
    expect(await translate()).toBe('Su colega escribe una letra.');
    await deeplClient(adminKey).deleteGlossary(created);
    await glossaryWriteApplied();
    expect(await translate()).toBe('Su amigo escribe una letra.');
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

describe('deepl-node through the gateway to DeepL (its double)', () => {
  let double: DeepLDouble;
  let viaDeepL: Stack;
  let client: deepl.Translator;

  beforeAll(async () => {
    double = await startDeepLDouble();
    viaDeepL = await startStack('e2e-compat-deepl', {
      PRIMARY_ENGINE: 'deepl',
      PRIMARY_ENGINE_KEY: 'test-key:fx',
      PRIMARY_ENGINE_URL: double.url,
    });
    const key = await createKeyWithCli(viaDeepL.db.url, 'client');
    client = new deepl.Translator(key, { serverUrl: viaDeepL.gateway, maxRetries: 0 });
  }, 150_000);

  afterAll(async () => {
    await stopStack(viaDeepL);
    await double?.close();
  });

  const sentToDeepL = () =>
    double.requests
      .filter((request) => request.path === '/v2/translate')
      .map((request) => request.body as Record<string, unknown>);

  it('passes formality and context on to DeepL into a target with formality', async () => {
    double.reset();
    const result = await client.translateText('Good morning', 'en', 'de', {
      formality: 'more',
      context: 'A letter to a customer.',
    });
    expect(result.text).toBe('Guten Morgen');
    expect(sentToDeepL()).toEqual([
      expect.objectContaining({ target_lang: 'DE', formality: 'more', context: 'A letter to a customer.' }),
    ]);
  });

  it('leaves formality out into a target DeepL has none for (DeepL would refuse it) and keeps context', async () => {
    double.reset();
    const result = await client.translateText('Good morning', 'en', 'zh-HANS', {
      formality: 'less',
      context: 'A greeting.',
    });
    expect(result.text).toBe('早上好');
    const [sent] = sentToDeepL();
    expect(sent).toMatchObject({ context: 'A greeting.' });
    expect(sent).not.toHaveProperty('formality');
  });

  it('marks the targets DeepL serves with formality', async () => {
    const targets = await client.getTargetLanguages();
    const formal = (code: string) => targets.find((language) => language.code === code)?.supportsFormality;
    expect([formal('de'), formal('zh-HANS')]).toEqual([true, false]);
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
