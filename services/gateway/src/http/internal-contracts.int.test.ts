import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import {
  startTestTranslator,
  tinyModelsDir,
  type TestTranslator,
} from '../../../translator/test/translator-fixture.js';
import { NliClient } from '../nli/nli-client.js';
import { TranslatorClient } from '../translate/translator-client.js';

// Every internal call the gateway makes, against the real translator and nli service. The clients
// parse each answer with its strict schema (@tp/service-contracts): a field one side has and the
// other does not fails here.
let models: Awaited<ReturnType<typeof tinyModelsDir>>;
let translatorService: TestTranslator;
let nliService: TestNli;
let translator: TranslatorClient;
let nli: NliClient;
const signal = new AbortController().signal;

beforeAll(async () => {
  models = await tinyModelsDir();
  [translatorService, nliService] = await Promise.all([
    startTestTranslator({ ...models.settings }),
    startNliWithTinyModel(),
  ]);
  translator = new TranslatorClient(translatorService.url, 5000, 2000);
  nli = new NliClient(nliService.url, 5000);
});

afterAll(async () => {
  await Promise.all([translatorService?.close(), nliService?.close()]);
  await models?.remove();
});

describe('the gateway and the translator agree on every call', () => {
  it('POST /translate, a miss and then a hit', async () => {
    const call = { text: '你好，世界', source: 'zh-CN', target: 'en' };
    const miss = await translator.translate(call, 'contract-1', signal);
    expect(miss).toMatchObject({ cached: false, engine: 'offline', fallback: false });
    expect(miss.attempts.length).toBeGreaterThan(0);
    const hit = await translator.translate(call, 'contract-2', signal);
    expect(hit).toMatchObject({ cached: true, attempts: [] });
  });

  it('POST /translate with source auto', async () => {
    const result = await translator.translate({ text: '你好', source: 'auto', target: 'en' }, 'c-3', signal);
    expect(result.detectedSource).toBe('zh-CN');
  });

  it('POST /translate/test, GET /engines, GET /pairs and GET /languages', async () => {
    const tested = await translator.testChain({ text: '世界', source: 'zh-CN', target: 'en' }, 'c-4', signal);
    expect(tested.attempts.some((attempt) => attempt.outcome === 'ok')).toBe(true);
    const engines = await translator.engines('c-5', signal, 2000);
    expect(engines.offlineModels).toEqual([expect.objectContaining({ source: 'zh-CN', target: 'en' })]);
    expect(await translator.pairs({ source: 'zh-CN' }, 'c-6', signal)).toContainEqual(
      expect.objectContaining({ source: 'zh-CN', target: 'en', engines: ['offline'] }),
    );
    expect((await translator.languages())?.length).toBeGreaterThan(10);
  });
});

describe('the gateway and the nli service agree on every call', () => {
  it('POST /detect and POST /classify', async () => {
    expect(await nli.detect('they will kill him', 'c-7')).toMatchObject({ is_safe: false });
    const classified = await nli.classify({ text: 'green tea', candidate_labels: ['tea', 'war'] }, 'c-8');
    expect(classified.labels).toHaveLength(2);
  });

  it('GET /status, GET /config and PUT /config', async () => {
    expect(await nli.status('c-9')).toMatchObject({ model_ready: true, test_model: true });
    const before = await nli.config('c-10');
    const after = await nli.updateConfig({ threshold: 0.6 }, 'c-11');
    expect(after).toMatchObject({ threshold: 0.6, revision: before.revision + 1 });
  });
});

describe('an answer outside the contract', () => {
  let server: Server;
  let answer: Record<string, unknown>;
  const valid = {
    translatedText: 'hello',
    source: 'zh-CN',
    target: 'en',
    engine: 'apertium',
    cached: false,
    truncated: false,
    fallback: false,
    duration: 0.01,
    attempts: [],
  };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () =>
    new TranslatorClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 2000, 2000);
  const call = { text: '你好', source: 'zh-CN', target: 'en' };

  it('is taken as it is when it keeps the contract', async () => {
    answer = valid;
    await expect(client().translate(call, 'c-12', signal)).resolves.toEqual(valid);
  });

  it('is refused as the translator unavailable, naming a missing field', async () => {
    const { fallback: _dropped, ...withoutFallback } = valid;
    answer = withoutFallback;
    await expect(client().translate(call, 'c-13', signal)).rejects.toMatchObject({
      code: 'TRANSLATOR_UNAVAILABLE',
      httpStatus: 503,
      message: expect.stringMatching(/outside its contract: fallback:/),
    });
  });

  it('is refused when it carries a field the contract does not know', async () => {
    answer = { ...valid, confidence: 0.9 };
    await expect(client().translate(call, 'c-14', signal)).rejects.toMatchObject({
      code: 'TRANSLATOR_UNAVAILABLE',
      message: expect.stringMatching(/outside its contract/),
    });
  });
});
