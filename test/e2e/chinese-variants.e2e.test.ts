// Issue 34: on the default set-up (the seeded target languages, OpenCC on by default), a zh-CN
// catalogue gets zh-TW rows converted by OpenCC, and a read with `x-language: zh-TW` serves them. The
// LibreTranslate double is the stack's translating engine (its English rows are `[en] text`).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { createTopics, testBrokers, testKafka, uniquePrefix } from '../harness/kafka.js';
import { startPipelineStack, type PipelineStack } from '../harness/pipeline-stack.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('variants');
let libre: LibreTranslateDouble;
let stack: PipelineStack;

beforeAll(async () => {
  await createTopics(testKafka('variants-e2e'), prefix);
  libre = await startLibreTranslateDouble();
  stack = await startPipelineStack({
    kafkaBrokers: testBrokers().join(','),
    topicPrefix: prefix,
    libreTranslateUrl: libre.url,
    workers: 1,
    translators: 1,
    env: { APERTIUM_URL: '' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await libre?.close();
}, 60_000);

describe('a zh-CN catalogue on the default set-up', () => {
  it('gets zh-TW rows in Taiwan vocabulary, served to a read with x-language: zh-TW', async () => {
    const config = await stack.call('GET', '/api/admin/translate/config', stack.adminKey);
    expect(config.body.data.target_languages).toEqual(['en', 'zh-TW']);

    const reported = await stack.call('POST', '/api/v1/content/catalog/vendor/v-1', stack.clientKey, {
      source_lang: 'zh-CN',
      source_version: 1,
      fields: { name: '软件公司', slogan: '我们坐出租车去买鼠标' },
    });
    expect(reported.status).toBe(202);
    await waitFor('the zh-TW rows', async () => (await stack.translations('vendor')).length === 4, 60_000);
    expect(await stack.translations('vendor')).toEqual([
      'v-1 name en 1 [en] 软件公司',
      'v-1 name zh-TW 1 軟體公司',
      'v-1 slogan en 1 [en] 我们坐出租车去买鼠标',
      'v-1 slogan zh-TW 1 我們坐計程車去買滑鼠',
    ]);

    const res = await fetch(`${stack.processes.get('gateway')?.url}/api/v1/content/vendor/v-1?meta=true`, {
      headers: { authorization: `Bearer ${stack.clientKey}`, 'x-language': 'zh-TW' },
    });
    const read = (await res.json()) as {
      data: { fields: Record<string, string>; meta: Record<string, { engine?: string }> };
    };
    expect(res.status).toBe(200);
    expect(read.data.fields).toEqual({ name: '軟體公司', slogan: '我們坐計程車去買滑鼠' });
    expect(read.data.meta.name?.engine).toBe('opencc');
  });
});
