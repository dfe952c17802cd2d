import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';

import { TermScanner } from '@tp/translation';
import { startDeepLDouble, type DeepLDouble } from '@tp/test/doubles/deepl.double';
import { never, translateOne } from '@tp/test/doubles/engine-test-kit';
import { waitFor } from '@tp/test/harness/wait';
import { translateWithEngine } from '../../chain/translate-with-engine.js';
import { GlossaryNotAppliedError, type EngineGlossary, type TranslationEngine } from '../engine.js';
import { createDeepLEngine } from './deepl.engine.js';

const KEY = 'glossary-key:fx';

const glossary = (key: string, target = 'Acme Wolke'): EngineGlossary => ({
  key,
  source: 'en',
  target: 'de',
  entries: [
    { source: 'Acme Cloud', target },
    { source: 'Widget', target: 'Widget' },
  ],
});

const requestsTo = (double: DeepLDouble, method: string, path: string) =>
  double.requests.filter((r) => r.method === method && r.path === path);

describe('DeepL engine with DeepL glossaries', () => {
  let double: DeepLDouble;
  let engine: TranslationEngine;

  beforeAll(async () => {
    double = await startDeepLDouble({ authKey: KEY });
  });
  afterAll(() => double.close());
  beforeEach(() => {
    double.reset();
    // A new engine per test: its glossary ids start empty.
    engine = createDeepLEngine({ authKey: KEY, baseUrl: double.url });
  });

  it('creates the glossary at DeepL once per version and sends its id with source_lang', async () => {
    const request = { text: 'Acme Cloud is fast', source: 'en', target: 'de', glossary: glossary('g1:1') };

    const first = await translateOne(engine, request, never);
    const second = await translateOne(engine, request, never);

    expect(engine.appliesGlossaries).toBe(true);
    expect(first.text).toBe('[DE] Acme Wolke is fast');
    expect(second.text).toBe(first.text);
    const creates = requestsTo(double, 'POST', '/v2/glossaries');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.body).toMatchObject({
      source_lang: 'EN',
      target_lang: 'DE',
      entries: 'Acme Cloud\tAcme Wolke\nWidget\tWidget',
      entries_format: 'tsv',
    });
    const [held] = double.glossaries();
    const translates = requestsTo(double, 'POST', '/v2/translate').map((r) => r.body);
    expect(translates).toEqual([
      expect.objectContaining({ glossary_id: held?.id, source_lang: 'EN', target_lang: 'DE' }),
      expect.objectContaining({ glossary_id: held?.id, source_lang: 'EN', target_lang: 'DE' }),
    ]);
  });

  it('creates a new glossary for a new version and deletes the superseded one at DeepL', async () => {
    const text = 'Acme Cloud';
    await translateOne(engine, { text, source: 'en', target: 'de', glossary: glossary('g2:1') }, never);
    const [old] = double.glossaries().slice(-1);

    const result = await translateOne(
      engine,
      { text, source: 'en', target: 'de', glossary: glossary('g2:2', 'Acme Himmel') },
      never,
    );

    expect(result.text).toBe('[DE] Acme Himmel');
    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(2);
    await waitFor(
      'the old glossary deleted at DeepL',
      () => !double.glossaries().some((g) => g.id === old?.id),
    );
    expect(requestsTo(double, 'DELETE', `/v2/glossaries/${old?.id}`)).toHaveLength(1);
  });

  it('uses the glossary of the same version an earlier run left at DeepL instead of creating another', async () => {
    const request = { text: 'Acme Cloud', source: 'en', target: 'de', glossary: glossary('g10:1') };
    await translateOne(engine, request, never);
    // A restart, or another replica: a process that holds no glossary ids yet.
    const restarted = createDeepLEngine({ authKey: KEY, baseUrl: double.url });

    const result = await translateOne(restarted, request, never);

    expect(result.text).toBe('[DE] Acme Wolke');
    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(1);
    const held = double.glossaries().filter((g) => g.name === 'tp g10:1');
    expect(held).toHaveLength(1);
    const ids = requestsTo(double, 'POST', '/v2/translate').map(
      (r) => (r.body as { glossary_id?: string }).glossary_id,
    );
    expect(ids).toEqual([held[0]?.id, held[0]?.id]);
  });

  it('deletes the older versions an earlier run left at DeepL when it first uses a newer one', async () => {
    const text = 'Acme Cloud';
    await translateOne(engine, { text, source: 'en', target: 'de', glossary: glossary('g11:1') }, never);
    await translateOne(engine, { text, source: 'en', target: 'de', glossary: glossary('g12:1') }, never);
    const restarted = createDeepLEngine({ authKey: KEY, baseUrl: double.url });

    await translateOne(
      restarted,
      { text, source: 'en', target: 'de', glossary: glossary('g11:3', 'Acme Himmel') },
      never,
    );

    await waitFor('the older version deleted at DeepL', () =>
      double.glossaries().every((g) => g.name !== 'tp g11:1'),
    );
    // Another glossary (g12) is not touched, whatever its version.
    const names = double.glossaries().map((g) => g.name);
    expect(names.filter((name) => /^tp g1[12]:/.test(name)).sort()).toEqual(['tp g11:3', 'tp g12:1']);
  });

  it('creates an English-target glossary without variant and uses it for en-US', async () => {
    const request = {
      text: 'Acme Wolke',
      source: 'de',
      target: 'en',
      glossary: {
        key: 'g3:1',
        source: 'de',
        target: 'en',
        entries: [{ source: 'Acme Wolke', target: 'Acme Cloud' }],
      },
    };

    const result = await translateOne(engine, request, never);

    expect(result.text).toBe('[EN-US] Acme Cloud');
    expect(requestsTo(double, 'POST', '/v2/glossaries')[0]?.body).toMatchObject({ target_lang: 'EN' });
  });

  it('refuses the glossary (GlossaryNotAppliedError) when DeepL does not create it, and tries again next time', async () => {
    double.fail(
      { type: 'respond', status: 503, body: { message: 'Service unavailable' } },
      { path: '/v2/glossaries', method: 'POST' },
    );
    const request = { text: 'Acme Cloud', source: 'en', target: 'de', glossary: glossary('g4:1') };

    await expect(translateOne(engine, request, never)).rejects.toBeInstanceOf(GlossaryNotAppliedError);
    const result = await translateOne(engine, request, never);

    expect(result.text).toBe('[DE] Acme Wolke');
    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(2);
  });

  it('lets a request that gives up stop waiting while the glossary it started is created for the others', async () => {
    double.fail({ type: 'delay', ms: 200 }, { path: '/v2/glossaries', method: 'POST' });
    const request = { text: 'Acme Cloud', source: 'en', target: 'de', glossary: glossary('g9:1') };
    const gaveUp = new AbortController();

    const first = translateOne(engine, request, gaveUp.signal);
    gaveUp.abort(new Error('caller timed out'));
    await expect(first).rejects.toThrow('caller timed out');
    const second = await translateOne(engine, request, never);

    expect(second.text).toBe('[DE] Acme Wolke');
    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(1);
  });

  it('refuses and forgets a glossary DeepL no longer knows, then creates it again', async () => {
    const request = { text: 'Acme Cloud', source: 'en', target: 'de', glossary: glossary('g5:1') };
    await translateOne(engine, request, never);
    const [created] = double.glossaries().slice(-1);
    await fetch(`${double.url}/v2/glossaries/${created?.id}`, {
      method: 'DELETE',
      headers: { authorization: `DeepL-Auth-Key ${KEY}` },
    });

    await expect(translateOne(engine, request, never)).rejects.toBeInstanceOf(GlossaryNotAppliedError);
    const again = await translateOne(engine, request, never);

    expect(again.text).toBe('[DE] Acme Wolke');
    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(2);
  });

  it('refuses a glossary for an auto-detected source without calling DeepL', async () => {
    const request = { text: 'Acme Cloud', source: 'auto', target: 'de', glossary: glossary('g6:1') };

    await expect(translateOne(engine, request, never)).rejects.toBeInstanceOf(GlossaryNotAppliedError);
    expect(double.requests).toHaveLength(0);
  });

  it('holds a 400 refusal for the version: later requests do not create the glossary again', async () => {
    double.fail(
      {
        type: 'respond',
        status: 400,
        body: { message: 'Unsupported glossary source and target language pair' },
      },
      { path: '/v2/glossaries', method: 'POST' },
    );
    const request = { text: 'Acme Cloud', source: 'en', target: 'de', glossary: glossary('g8:1') };

    await expect(translateOne(engine, request, never)).rejects.toBeInstanceOf(GlossaryNotAppliedError);
    await expect(translateOne(engine, request, never)).rejects.toBeInstanceOf(GlossaryNotAppliedError);

    expect(requestsTo(double, 'POST', '/v2/glossaries')).toHaveLength(1);
    expect(requestsTo(double, 'POST', '/v2/translate')).toHaveLength(0);
  });

  it('falls back to masking the terms in the chain when DeepL refuses the glossary', async () => {
    double.fail(
      {
        type: 'respond',
        status: 400,
        body: { message: 'Unsupported glossary source and target language pair' },
      },
      { path: '/v2/glossaries', method: 'POST' },
    );
    const scanner = new TermScanner(['Acme Cloud', 'Widget']);

    const [outcome] = await translateWithEngine(
      engine,
      {
        texts: ['Acme Cloud is fast'],
        source: 'en',
        target: 'de',
        glossary: { ...glossary('g7:1'), scanner },
      },
      true,
      never,
    );

    expect(outcome).toMatchObject({ ok: true, text: expect.stringContaining('Acme Wolke') });
    const translates = requestsTo(double, 'POST', '/v2/translate').map((r) => r.body);
    expect(translates).toHaveLength(1);
    expect(translates[0]).not.toHaveProperty('glossary_id');
    expect(JSON.stringify(translates[0])).not.toContain('Acme Cloud');
  });
});

describe('DeepL double glossaries', () => {
  let double: DeepLDouble;
  const post = (path: string, body: unknown) =>
    fetch(`${double.url}${path}`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    double = await startDeepLDouble({ authKey: KEY });
  });
  afterAll(() => double.close());

  it('answers 400 for a glossary_id without source_lang and 404 for an unknown glossary', async () => {
    const created = await post('/v2/glossaries', {
      name: 'n', source_lang: 'en', target_lang: 'de', entries: 'a\tb', entries_format: 'tsv',
    }); // prettier-ignore
    const info = (await created.json()) as { glossary_id: string; entry_count: number; source_lang: string };
    expect(created.status).toBe(201);
    expect(info).toMatchObject({ entry_count: 1, source_lang: 'en' });

    const noSource = await post('/v2/translate', {
      text: ['a'],
      target_lang: 'DE',
      glossary_id: info.glossary_id,
    });
    const unknown = await post('/v2/translate', {
      text: ['a'], source_lang: 'EN', target_lang: 'DE', glossary_id: '00000000-0000-4000-8000-000000000000',
    }); // prettier-ignore

    expect(noSource.status).toBe(400);
    expect(await noSource.json()).toEqual({
      message: 'Use of a glossary requires the source_lang parameter to be specified',
    });
    expect(unknown.status).toBe(404);
  });
});
