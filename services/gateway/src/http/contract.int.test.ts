import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, SourceContent } from '@tp/db';
import { HotCache } from '@tp/translation';
import { createClient } from 'redis';

import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import {
  startTestTranslator,
  tinyModelsDir,
  type TestTranslator,
} from '../../../translator/test/translator-fixture.js';
import { startOpenAiDouble, type OpenAiDouble } from '@tp/test/doubles/openai.double';
import { DeadLetterIndex } from '@tp/pipeline';
import { operations, startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { committedOpenApi, OpenApiContract } from '../../test/openapi-contract.js';

// Real requests, real answers, checked against the committed, reviewed document
// (services/gateway/openapi.json), which the served one must equal: every operation with at least one
// success and its usual failures. The translator and nli services run for real, with
// the project's tiny models.
let gateway: TestGateway;
let translator: TestTranslator;
let nli: TestNli;
let upstream: OpenAiDouble;
let cleanups: (() => Promise<void>)[] = [];
let contract: OpenApiContract;
const redis = createClient({ url: process.env.REDIS_URL });

beforeAll(async () => {
  const models = await tinyModelsDir();
  [translator, nli, upstream] = await Promise.all([
    startTestTranslator({ ...models.settings, REDIS_KEY_PREFIX: 'contract:' }),
    startNliWithTinyModel(),
    startOpenAiDouble({ apiKey: 'sk-contract' }),
  ]);
  process.env.CONTRACT_UPSTREAM_KEY = 'sk-contract';
  cleanups = [models.remove];
  gateway = await startTestGateway({
    RATE_LIMIT_PUBLIC: '1000',
    RATE_LIMIT_PER_KEY: '1000',
    TRANSLATOR_URL: translator.url,
    NLI_URL: nli.url,
    REDIS_KEY_PREFIX: translator.config.REDIS_KEY_PREFIX,
    CHAT_PROVIDERS: JSON.stringify([
      { name: 'up', base_url: upstream.url, api_key_env: 'CONTRACT_UPSTREAM_KEY', models: ['gpt-test-mini'] },
    ]),
  });
  contract = new OpenApiContract(committedOpenApi());
  await redis.connect();
  await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(
    { source: 'zh-CN', target: 'en', text: '你好' },
    {
      translatedText: 'hello',
      source: 'zh-CN',
      engine: 'offline',
      cachedAt: new Date().toISOString(),
      truncated: false,
    },
  );
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([translator?.close(), nli?.close(), upstream?.close()]);
  for (const cleanup of cleanups) await cleanup();
  await redis.close();
});

type Auth = 'none' | 'client' | 'admin' | 'revoked';

interface Scenario {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly url?: string | (() => Promise<string>);
  readonly auth: Auth;
  readonly body?: unknown;
  readonly status: number;
}

const newKeyId = async () => (await gateway.store.create('client', 'to revoke')).id;
const newTermId = async () => {
  const res = await fetch(`${gateway.url}/api/admin/moderation/terms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ term: `term${Date.now()}`, kind: 'allow' }),
  });
  return ((await res.json()) as { data: { id: string } }).data.id;
};

/** A vendor with source content, as the planner would leave it (stored once). */
let vendorSeeded: Promise<void> | undefined;
/** The id of a running backfill of `en` (one is started, or the running one answered). */
const runningBackfill = async (): Promise<string> => {
  const res = await fetch(`${gateway.url}/api/admin/translate/backfill`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ language: 'en' }),
  });
  const body = (await res.json()) as { data: { backfill: { id: string } } };
  return body.data.backfill.id;
};

const seededVendor = async (url: string) => {
  vendorSeeded ??= (async () => {
    const orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 1 });
    await orm.em.fork().insert(SourceContent, {
      module: 'catalog',
      entityType: 'vendor',
      entityId: 'contract-v1',
      field: 'name',
      sourceLang: 'zh-CN',
      text: '华为',
      sourceHash: 'h',
      sourceVersion: 1,
      updatedAt: new Date(),
    });
    await orm.close(true);
  })();
  await vendorSeeded;
  return url;
};

/** A glossary of its own language pair (one glossary per pair); returns the path that names it. */
const newGlossary = async (source: string, target: string) => {
  const res = await fetch(`${gateway.url}/api/admin/translate/glossaries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `contract ${source}-${target}`,
      source_lang: source,
      target_lang: target,
      entries: [{ source: 'Acme', target: 'Acme' }],
    }),
  });
  const { data } = (await res.json()) as { data: { id: string } };
  return `/api/admin/translate/glossaries/${data.id}`;
};

/** A glossary of its own pair made through DeepL's API; returns its /v2 path. */
const newDeepLGlossary = async (source: string, target: string) => {
  const res = await fetch(`${gateway.url}/v2/glossaries`, {
    method: 'POST',
    headers: {
      authorization: `DeepL-Auth-Key ${gateway.keys.admin}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      name: `deepl ${source}-${target}`,
      source_lang: source,
      target_lang: target,
      entries: 'Acme\tAcme',
      entries_format: 'tsv',
    }).toString(),
  });
  const { glossary_id } = (await res.json()) as { glossary_id: string };
  return `/v2/glossaries/${glossary_id}`;
};

/** A change reported with the client key; returns the path that tracks it. */
const trackedReport = async () => {
  const res = await fetch(`${gateway.url}/api/v1/content/catalog/vendor/contract-tracked`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.keys.client}` },
    body: JSON.stringify({ source_lang: 'zh-CN', source_version: 1, fields: { name: '小米' } }),
  });
  const { data } = (await res.json()) as { data: { tracking_id: string } };
  return `/api/v1/content/tracking/${data.tracking_id}`;
};

/** One dead letter in the index; returns the path that reads it. */
const seededDeadLetter = async () => {
  const orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 1 });
  try {
    const index = new DeadLetterIndex(orm);
    await index.add({
      eventId: null,
      originalTopic: 'translation.requested.v1',
      originalPartition: 0,
      originalOffset: Date.now(),
      messageKey: Buffer.from('vendor:v1:name:en'),
      payload: Buffer.from('not avro'),
      headers: {},
      consumerGroup: 'translator.engines',
      errorCode: 'MESSAGE_UNDECODABLE',
      errorMessage: 'contract test',
      attempts: 1,
      failedAt: new Date(),
    });
    const [newest] = await index.list({ limit: 1 });
    return `/api/admin/translate/dead-letters/${newest?.id}`;
  } finally {
    await orm.close(true);
  }
};

const DEEPL_SCENARIOS: Scenario[] = [
  {
    name: 'DeepL translate (a cached text)',
    method: 'post',
    path: '/v2/translate',
    auth: 'client',
    body: { text: ['你好'], source_lang: 'ZH', target_lang: 'EN-US', show_billed_characters: true },
    status: 200,
  },
  {
    name: 'DeepL translate, unknown target',
    method: 'post',
    path: '/v2/translate',
    auth: 'client',
    body: { text: 'hi', target_lang: 'XX' },
    status: 400,
  },
  {
    name: 'DeepL translate, no key',
    method: 'post',
    path: '/v2/translate',
    auth: 'none',
    body: { text: 'hi', target_lang: 'ES' },
    status: 403,
  },
  { name: 'DeepL usage', method: 'get', path: '/v2/usage', auth: 'client', status: 200 },
  {
    name: 'DeepL target languages',
    method: 'get',
    path: '/v2/languages',
    url: '/v2/languages?type=target',
    auth: 'client',
    status: 200,
  },
  {
    name: 'DeepL source languages',
    method: 'post',
    path: '/v2/languages',
    auth: 'client',
    body: { type: 'source' },
    status: 200,
  },
  { name: 'DeepL languages, no key', method: 'get', path: '/v2/languages', auth: 'none', status: 403 },
  {
    name: 'DeepL glossary pairs',
    method: 'get',
    path: '/v2/glossary-language-pairs',
    auth: 'client',
    status: 200,
  },
  {
    name: 'DeepL create a glossary',
    method: 'post',
    path: '/v2/glossaries',
    auth: 'admin',
    body: {
      name: 'brands',
      source_lang: 'EN',
      target_lang: 'DE',
      entries: 'Acme\tAcme',
      entries_format: 'tsv',
    },
    status: 201,
  },
  {
    name: 'DeepL create a glossary, client key',
    method: 'post',
    path: '/v2/glossaries',
    auth: 'client',
    body: { name: 'brands', source_lang: 'EN', target_lang: 'NL', entries: 'Acme\tAcme' },
    status: 403,
  },
  {
    name: 'DeepL create a glossary, unknown language',
    method: 'post',
    path: '/v2/glossaries',
    auth: 'admin',
    body: { name: 'brands', source_lang: 'EN', target_lang: 'XX', entries: 'Acme\tAcme' },
    status: 400,
  },
  { name: 'DeepL glossaries', method: 'get', path: '/v2/glossaries', auth: 'client', status: 200 },
  {
    name: 'DeepL one glossary',
    method: 'get',
    path: '/v2/glossaries/{glossary_id}',
    url: () => newDeepLGlossary('EN', 'NL'),
    auth: 'client',
    status: 200,
  },
  {
    name: 'DeepL no such glossary',
    method: 'get',
    path: '/v2/glossaries/{glossary_id}',
    url: '/v2/glossaries/00000000-0000-4000-8000-000000000000',
    auth: 'client',
    status: 404,
  },
  {
    name: 'DeepL glossary entries',
    method: 'get',
    path: '/v2/glossaries/{glossary_id}/entries',
    url: async () => `${await newDeepLGlossary('EN', 'PL')}/entries`,
    auth: 'client',
    status: 200,
  },
  {
    name: 'DeepL delete a glossary',
    method: 'delete',
    path: '/v2/glossaries/{glossary_id}',
    url: () => newDeepLGlossary('EN', 'SV'),
    auth: 'admin',
    status: 204,
  },
];

const LIBRE_SCENARIOS: Scenario[] = [
  {
    name: 'LibreTranslate translate (a cached text)',
    method: 'post',
    path: '/translate',
    auth: 'none',
    body: { q: '你好', source: 'zh-Hans', target: 'en' },
    status: 200,
  },
  {
    name: 'LibreTranslate translate, unknown target',
    method: 'post',
    path: '/translate',
    auth: 'none',
    body: { q: 'hi', target: 'xx' },
    status: 400,
  },
  { name: 'LibreTranslate languages', method: 'get', path: '/languages', auth: 'none', status: 200 },
  {
    name: 'LibreTranslate detect',
    method: 'post',
    path: '/detect',
    auth: 'none',
    body: { q: 'Buenos días, mi amigo' },
    status: 200,
  },
  {
    name: 'LibreTranslate detect, no text',
    method: 'post',
    path: '/detect',
    auth: 'none',
    body: { q: '' },
    status: 400,
  },
  { name: 'LibreTranslate settings', method: 'get', path: '/frontend/settings', auth: 'none', status: 200 },
];

const SCENARIOS: Scenario[] = [
  {
    name: 'cache hit',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { text: '你好', target: 'en' },
    status: 200,
  },
  {
    name: 'validation',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { target: 'en' },
    status: 400,
  },
  {
    name: 'unsupported language',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { text: 'a', target: 'qq' },
    status: 400,
  },
  {
    name: 'translated by the offline model',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { text: '你好，世界', target: 'en' },
    status: 200,
  },
  {
    name: 'every engine fails',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { text: '新句子', target: 'en' },
    status: 503,
  },
  { name: 'online list', method: 'get', path: '/api/v1/translate/languages', auth: 'none', status: 200 },
  {
    name: 'no engine serves the pair',
    method: 'post',
    path: '/api/v1/translate',
    auth: 'none',
    body: { text: 'Good morning', source: 'en', target: 'de' },
    status: 400,
  },
  {
    name: 'served pairs',
    method: 'get',
    path: '/api/v1/translate/pairs',
    url: '/api/v1/translate/pairs?source=zh-cn',
    auth: 'none',
    status: 200,
  },
  {
    name: 'language of texts',
    method: 'post',
    path: '/api/v1/detect',
    auth: 'none',
    body: { text: ['软件和鼠标', '12345'] },
    status: 200,
  },
  {
    name: 'language of texts, not a text',
    method: 'post',
    path: '/api/v1/detect',
    auth: 'none',
    body: { text: [1] },
    status: 400,
  },
  {
    name: 'served pairs, unknown language',
    method: 'get',
    path: '/api/v1/translate/pairs',
    url: '/api/v1/translate/pairs?target=xx-nope',
    auth: 'none',
    status: 400,
  },
  {
    name: 'detect',
    method: 'post',
    path: '/api/v1/moderate/nli',
    auth: 'client',
    body: { text: 'I will kill you' },
    status: 200,
  },
  {
    name: 'detect, empty text',
    method: 'post',
    path: '/api/v1/moderate/nli',
    auth: 'client',
    body: { text: '' },
    status: 400,
  },
  {
    name: 'classify',
    method: 'post',
    path: '/api/admin/nli/test',
    auth: 'admin',
    body: { text: 'buy cheap pills now', candidate_labels: ['spam', 'safe'] },
    status: 200,
  },
  {
    name: 'classify, too many labels (the nli limit)',
    method: 'post',
    path: '/api/admin/nli/test',
    auth: 'admin',
    body: { text: 'hello', candidate_labels: Array.from({ length: 30 }, (_, i) => `label ${i}`) },
    status: 400,
  },
  {
    name: 'keyword hit',
    method: 'post',
    path: '/api/v1/moderate',
    auth: 'client',
    body: { text: '你这个傻逼' },
    status: 200,
  },
  {
    name: 'hybrid, clean text goes to NLI',
    method: 'post',
    path: '/api/v1/moderate',
    auth: 'client',
    body: { text: 'I like green tea', mode: 'hybrid' },
    status: 200,
  },
  {
    name: 'unknown field',
    method: 'post',
    path: '/api/v1/moderate',
    auth: 'client',
    body: { text: 'x', extra: 1 },
    status: 400,
  },
  {
    name: 'add a term',
    method: 'post',
    path: '/api/admin/moderation/terms',
    auth: 'admin',
    body: { term: 'zorglub', kind: 'block' },
    status: 201,
  },
  {
    name: 'the same term in full-width',
    method: 'post',
    path: '/api/admin/moderation/terms',
    auth: 'admin',
    body: { term: 'ＺＯＲＧＬＵＢ', kind: 'block' },
    status: 409,
  },
  { name: 'list terms', method: 'get', path: '/api/admin/moderation/terms', auth: 'admin', status: 200 },
  {
    name: 'delete a term',
    method: 'delete',
    path: '/api/admin/moderation/terms/{id}',
    url: async () => `/api/admin/moderation/terms/${await newTermId()}`,
    auth: 'admin',
    status: 200,
  },
  {
    name: 'delete an unknown term',
    method: 'delete',
    path: '/api/admin/moderation/terms/{id}',
    url: '/api/admin/moderation/terms/44444444-4444-4444-8444-444444444444',
    auth: 'admin',
    status: 404,
  },
  { name: 'nli status', method: 'get', path: '/api/admin/nli/status', auth: 'admin', status: 200 },
  { name: 'nli config', method: 'get', path: '/api/admin/nli/config', auth: 'admin', status: 200 },
  {
    name: 'nli config update',
    method: 'put',
    path: '/api/admin/nli/config',
    auth: 'admin',
    body: { threshold: 0.6 },
    status: 200,
  },
  {
    name: 'nli config, bad threshold',
    method: 'put',
    path: '/api/admin/nli/config',
    auth: 'admin',
    body: { threshold: 7 },
    status: 400,
  },
  { name: 'whoami', method: 'get', path: '/api/v1/me', auth: 'client', status: 200 },
  { name: 'no key', method: 'get', path: '/api/v1/me', auth: 'none', status: 401 },
  { name: 'character usage', method: 'get', path: '/api/v1/usage', auth: 'client', status: 200 },
  { name: 'usage without a key', method: 'get', path: '/api/v1/usage', auth: 'none', status: 401 },
  {
    name: 'languages, revoked key',
    method: 'get',
    path: '/api/v1/translate/languages',
    auth: 'revoked',
    status: 401,
  },
  {
    name: 'create key',
    method: 'post',
    path: '/api/admin/keys',
    auth: 'admin',
    body: { role: 'client', name: 'c' },
    status: 201,
  },
  {
    name: 'bad role',
    method: 'post',
    path: '/api/admin/keys',
    auth: 'admin',
    body: { role: 'root' },
    status: 400,
  },
  {
    name: 'client on admin',
    method: 'post',
    path: '/api/admin/keys',
    auth: 'client',
    body: { role: 'client' },
    status: 403,
  },
  { name: 'list keys', method: 'get', path: '/api/admin/keys', auth: 'admin', status: 200 },
  { name: 'revoked key', method: 'get', path: '/api/admin/keys', auth: 'revoked', status: 401 },
  {
    name: 'revoke',
    method: 'delete',
    path: '/api/admin/keys/{id}',
    url: async () => `/api/admin/keys/${await newKeyId()}`,
    auth: 'admin',
    status: 200,
  },
  {
    name: 'set budgets',
    method: 'patch',
    path: '/api/admin/keys/{id}',
    url: async () => `/api/admin/keys/${await newKeyId()}`,
    auth: 'admin',
    body: { requests_per_day: 1000, tokens_per_month: null },
    status: 200,
  },
  {
    name: 'set budgets of an unknown key',
    method: 'patch',
    path: '/api/admin/keys/{id}',
    url: '/api/admin/keys/22222222-2222-4222-8222-222222222222',
    auth: 'admin',
    body: { tokens_per_day: 5 },
    status: 404,
  },
  {
    name: 'revoke unknown',
    method: 'delete',
    path: '/api/admin/keys/{id}',
    url: '/api/admin/keys/22222222-2222-4222-8222-222222222222',
    auth: 'admin',
    status: 404,
  },
  { name: 'status', method: 'get', path: '/api/admin/translate/status', auth: 'admin', status: 200 },
  {
    name: 'chat completion',
    method: 'post',
    path: '/v1/chat/completions',
    auth: 'client',
    body: { model: 'gpt-test-mini', messages: [{ role: 'user', content: 'hello there' }] },
    status: 200,
  },
  {
    name: 'unknown model',
    method: 'post',
    path: '/v1/chat/completions',
    auth: 'client',
    body: { model: 'nope', messages: [{ role: 'user', content: 'hi' }] },
    status: 404,
  },
  {
    name: 'no messages',
    method: 'post',
    path: '/v1/chat/completions',
    auth: 'client',
    body: { model: 'gpt-test-mini', messages: [] },
    status: 400,
  },
  { name: 'models', method: 'get', path: '/v1/models', auth: 'client', status: 200 },
  { name: 'models, no key', method: 'get', path: '/v1/models', auth: 'none', status: 401 },
  { name: 'chat usage', method: 'get', path: '/api/admin/chat/usage', auth: 'admin', status: 200 },
  {
    name: 'chat usage, window backwards',
    method: 'get',
    path: '/api/admin/chat/usage',
    url: '/api/admin/chat/usage?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
    auth: 'admin',
    status: 400,
  },
  {
    name: 'report a change',
    method: 'post',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: '/api/v1/content/catalog/vendor/contract-v2',
    auth: 'client',
    body: { source_lang: 'zh-CN', source_version: 1, fields: { name: '小米' } },
    status: 202,
  },
  {
    name: 'report a change, no fields',
    method: 'post',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: '/api/v1/content/catalog/vendor/contract-v2',
    auth: 'client',
    body: { source_lang: 'zh-CN', source_version: 1, fields: {} },
    status: 400,
  },
  {
    name: 'delete content',
    method: 'delete',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: '/api/v1/content/catalog/vendor/contract-v3?source_version=2',
    auth: 'client',
    status: 202,
  },
  {
    name: 'delete content, bad version',
    method: 'delete',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: '/api/v1/content/catalog/vendor/contract-v3?source_version=-1',
    auth: 'client',
    status: 400,
  },
  {
    name: 'track a report',
    method: 'get',
    path: '/api/v1/content/tracking/{tracking_id}',
    url: trackedReport,
    auth: 'client',
    status: 200,
  },
  {
    name: 'track a report, unknown id',
    method: 'get',
    path: '/api/v1/content/tracking/{tracking_id}',
    url: '/api/v1/content/tracking/00000000-0000-4000-8000-000000000000',
    auth: 'client',
    status: 404,
  },
  {
    name: 'human translations',
    method: 'put',
    path: '/api/v1/content/{module}/{type}/{id}/translations/{lang}',
    url: () => seededVendor('/api/v1/content/catalog/vendor/contract-v1/translations/en'),
    auth: 'client',
    body: { fields: { name: 'Huawei' } },
    status: 200,
  },
  {
    name: 'human translations, unknown entity',
    method: 'put',
    path: '/api/v1/content/{module}/{type}/{id}/translations/{lang}',
    url: '/api/v1/content/catalog/vendor/nobody/translations/en',
    auth: 'client',
    body: { fields: { name: 'Huawei' } },
    status: 404,
  },
  {
    name: 'read content',
    method: 'get',
    path: '/api/v1/content/{type}/{id}',
    url: () => seededVendor('/api/v1/content/vendor/contract-v1'),
    auth: 'client',
    status: 200,
  },
  {
    name: 'read content, unknown entity',
    method: 'get',
    path: '/api/v1/content/{type}/{id}',
    url: '/api/v1/content/vendor/nobody',
    auth: 'client',
    status: 404,
  },
  {
    name: 'read content on the write path',
    method: 'get',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: () => seededVendor('/api/v1/content/catalog/vendor/contract-v1'),
    auth: 'client',
    status: 200,
  },
  {
    name: 'read content on the write path, another module',
    method: 'get',
    path: '/api/v1/content/{module}/{type}/{id}',
    url: () => seededVendor('/api/v1/content/billing/vendor/contract-v1'),
    auth: 'client',
    status: 404,
  },
  {
    name: 'read a vendor',
    method: 'get',
    path: '/api/v1/vendors/{vendor_id}',
    url: () => seededVendor('/api/v1/vendors/contract-v1'),
    auth: 'client',
    status: 200,
  },
  {
    name: 'read many',
    method: 'get',
    path: '/api/v1/content/{type}',
    url: () => seededVendor('/api/v1/content/vendor?ids=contract-v1,nobody'),
    auth: 'client',
    status: 200,
  },
  {
    name: 'translation config',
    method: 'get',
    path: '/api/admin/translate/config',
    auth: 'admin',
    status: 200,
  },
  {
    name: 'translation config update',
    method: 'put',
    path: '/api/admin/translate/config',
    auth: 'admin',
    body: { enabled: true },
    status: 200,
  },
  {
    name: 'translation config, unknown code',
    method: 'put',
    path: '/api/admin/translate/config',
    auth: 'admin',
    body: { target_languages: ['xx'] },
    status: 400,
  },
  {
    name: 'test a translation',
    method: 'post',
    path: '/api/admin/translate/test',
    auth: 'admin',
    body: { text: '你好，世界', source: 'zh-CN', target: 'en' },
    status: 200,
  },
  {
    name: 'test a translation, no engine can',
    method: 'post',
    path: '/api/admin/translate/test',
    auth: 'admin',
    body: { text: '量子计算机', source: 'zh-CN', target: 'en' },
    status: 503,
  },
  {
    name: 'retranslate',
    method: 'post',
    path: '/api/admin/translate/retranslate/{module}/{type}/{id}',
    url: () => seededVendor('/api/admin/translate/retranslate/catalog/vendor/contract-v1'),
    auth: 'admin',
    status: 202,
  },
  {
    name: 'retranslate, unknown entity',
    method: 'post',
    path: '/api/admin/translate/retranslate/{module}/{type}/{id}',
    url: '/api/admin/translate/retranslate/catalog/vendor/nobody',
    auth: 'admin',
    status: 404,
  },
  {
    name: 'backfill',
    method: 'post',
    path: '/api/admin/translate/backfill',
    auth: 'admin',
    body: { language: 'en' },
    status: 202,
  },
  {
    name: 'backfill, language not configured',
    method: 'post',
    path: '/api/admin/translate/backfill',
    auth: 'admin',
    body: { language: 'de' },
    status: 409,
  },
  {
    name: 'cancel a backfill',
    method: 'delete',
    path: '/api/admin/translate/backfill/{id}',
    url: async () => `/api/admin/translate/backfill/${await runningBackfill()}`,
    auth: 'admin',
    status: 200,
  },
  {
    name: 'cancel a backfill, unknown id',
    method: 'delete',
    path: '/api/admin/translate/backfill/{id}',
    url: '/api/admin/translate/backfill/00000000-0000-4000-8000-000000000000',
    auth: 'admin',
    status: 404,
  },
  {
    name: 'dead letters',
    method: 'get',
    path: '/api/admin/translate/dead-letters',
    auth: 'admin',
    status: 200,
  },
  {
    name: 'one dead letter',
    method: 'get',
    path: '/api/admin/translate/dead-letters/{id}',
    url: () => seededDeadLetter(),
    auth: 'admin',
    status: 200,
  },
  {
    name: 'one dead letter, unknown id',
    method: 'get',
    path: '/api/admin/translate/dead-letters/{id}',
    url: '/api/admin/translate/dead-letters/999999',
    auth: 'admin',
    status: 404,
  },
  {
    name: 'replay dead letters',
    method: 'post',
    path: '/api/admin/translate/dead-letters/replay',
    auth: 'admin',
    body: { all: true },
    status: 200,
  },
  {
    name: 'replay dead letters, two selections',
    method: 'post',
    path: '/api/admin/translate/dead-letters/replay',
    auth: 'admin',
    body: { all: true, ids: [1] },
    status: 400,
  },
  {
    name: 'purge dead letters',
    method: 'post',
    path: '/api/admin/translate/dead-letters/purge',
    auth: 'admin',
    body: { all: true },
    status: 200,
  },
  {
    name: 'glossaries',
    method: 'get',
    path: '/api/admin/translate/glossaries',
    auth: 'admin',
    status: 200,
  },
  {
    name: 'create a glossary',
    method: 'post',
    path: '/api/admin/translate/glossaries',
    auth: 'admin',
    body: {
      name: 'brands',
      source_lang: 'en',
      target_lang: 'es',
      entries: 'Acme,Acme\nGreen House,Green House',
    },
    status: 201,
  },
  {
    name: 'create a glossary, malformed CSV',
    method: 'post',
    path: '/api/admin/translate/glossaries',
    auth: 'admin',
    body: {
      name: 'bad',
      source_lang: 'en',
      target_lang: 'pt',
      entries: 'Acme\n,empty',
      entries_format: 'csv',
    },
    status: 400,
  },
  {
    name: 'one glossary',
    method: 'get',
    path: '/api/admin/translate/glossaries/{id}',
    url: () => newGlossary('en', 'fr'),
    auth: 'admin',
    status: 200,
  },
  {
    name: 'update a glossary',
    method: 'put',
    path: '/api/admin/translate/glossaries/{id}',
    url: () => newGlossary('en', 'it'),
    auth: 'admin',
    body: { name: 'renamed' },
    status: 200,
  },
  {
    name: 'delete a glossary',
    method: 'delete',
    path: '/api/admin/translate/glossaries/{id}',
    url: () => newGlossary('en', 'ca'),
    auth: 'admin',
    status: 200,
  },
  {
    name: 'request counters',
    method: 'get',
    path: '/api/admin/metrics/requests',
    auth: 'admin',
    status: 200,
  },
  ...DEEPL_SCENARIOS,
  ...LIBRE_SCENARIOS,
  {
    name: 'request counters, client',
    method: 'get',
    path: '/api/admin/metrics/requests',
    auth: 'client',
    status: 403,
  },
];

/** The answer's body as its media type says: JSON, text (TSV), or none (204). */
async function answerBody(res: Response): Promise<{ body: unknown; mediaType: string }> {
  const mediaType = (res.headers.get('content-type') ?? 'application/json').split(';')[0]!.trim();
  if (res.status === 204) return { body: undefined, mediaType };
  return { body: mediaType === 'application/json' ? await res.json() : await res.text(), mediaType };
}

describe('the served OpenAPI document', () => {
  it('equals the committed, reviewed services/gateway/openapi.json (npm run openapi:write after an API change)', () => {
    expect(gateway.openapi).toEqual(committedOpenApi());
  });
});

describe('responses match the committed OpenAPI document', () => {
  it.each(SCENARIOS.map((s) => [`${s.method.toUpperCase()} ${s.path} (${s.name})`, s] as const))(
    '%s',
    async (_label, scenario) => {
      const url = typeof scenario.url === 'function' ? await scenario.url() : (scenario.url ?? scenario.path);
      const key = scenario.auth === 'none' ? undefined : gateway.keys[scenario.auth];
      const res = await fetch(`${gateway.url}${url}`, {
        method: scenario.method.toUpperCase(),
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
      });
      expect(res.status).toBe(scenario.status);
      const { body, mediaType } = await answerBody(res);
      contract.check(scenario.method, scenario.path, res.status, body, mediaType);
    },
  );

  it('the checker itself rejects a body that breaks the schema, and an undocumented status', () => {
    const checker = new OpenApiContract(committedOpenApi());
    expect(() => checker.check('get', '/api/v1/me', 200, { code: 0, data: { id: 'not-a-uuid' } })).toThrow(
      /must/,
    );
    expect(() => checker.check('get', '/api/v1/me', 418, {})).toThrow(/does not list/);
  });

  it('checked a success of every operation in the document', () => {
    const succeeded = new Set(contract.checked.filter((c) => c.status < 300).map((c) => c.operation));
    const all = operations(committedOpenApi()).map((op) => `${op.method} ${op.path}`);
    expect(all.filter((op) => !succeeded.has(op))).toEqual([]);
  });
});
