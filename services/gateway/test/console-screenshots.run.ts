import { mkdir } from 'node:fs/promises';

import { afterAll, beforeAll, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { DeadLetterIndex } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';
import type { Browser, Page } from 'playwright-core';

import { addDeadLetters, deadLetter } from '@tp/test/harness/dead-letters';
import { REPO_ROOT } from '@tp/test/harness/processes';
import {
  startTestTranslator,
  tinyModelsDir,
  type TestTranslator,
} from '../../translator/test/translator-fixture.js';
import { launchChromium, signIn, waitForText } from './console-browser.js';
import { startTestGateway, type TestGateway } from './gateway-fixture.js';

// `npm run console:screenshots`: every console page at 1280 and 390 px, saved to docs/console/ (shown in
// the README). Not a test of the suite (the file name has no tier); jest runs it for its global setup
// (Postgres, Redis, Kafka) against a real translator with the shared APy and the tiny zh->en model (text in Latin script: the machine's chromium has no CJK font).

const OUT = `${REPO_ROOT}docs/console`;
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'mobile', width: 390, height: 844 },
] as const;

let models: Awaited<ReturnType<typeof tinyModelsDir>>;
let translator: TestTranslator;
let gateway: TestGateway;
let orm: Orm;
let browser: Browser;

beforeAll(async () => {
  models = await tinyModelsDir();
  translator = await startTestTranslator({
    ...models.settings,
    APERTIUM_URL: process.env.APERTIUM_URL ?? 'http://127.0.0.1:2799',
  });
  // The traffic for the chart comes without a key, from one address: no public limit here.
  gateway = await startTestGateway({ TRANSLATOR_URL: translator.url, RATE_LIMIT_PUBLIC: '0' });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  browser = await launchChromium();
  await seed();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await orm?.close(true);
  await gateway?.close();
  await translator?.close();
  await models?.remove();
});

async function seed(): Promise<void> {
  const codec = new EventCodec();
  const failed = (m: number) =>
    deadLetter(codec, m, {
      errorCode: 'TRANSLATION_FAILED',
      errorMessage: 'every engine failed: apertium timed out',
    });
  const poison = (m: number) =>
    deadLetter(codec, m, {
      originalTopic: 'content.changed.v1',
      consumerGroup: 'worker.content',
      errorCode: 'MESSAGE_UNDECODABLE',
      errorMessage: 'message has no tp-schema-fingerprint header',
      payload: Buffer.from('{"not":"avro"}'),
      headers: {},
    });
  await addDeadLetters(new DeadLetterIndex(orm), [failed(1), poison(2), failed(3), poison(4), failed(5)]);
  const admin = { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' };
  await keyedTranslations();
  for (const term of [
    { term: 'scam', kind: 'block' },
    { term: 'scampi', kind: 'allow' },
  ]) {
    await fetch(`${gateway.url}/api/admin/moderation/terms`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(term),
    });
  }
}

/** A key with a monthly character budget that has translated a few texts, one of them twice (cached). */
async function keyedTranslations(): Promise<void> {
  const { key } = await gateway.store.create('client', 'docs site', {
    limits: { charactersPerMonth: 200_000 },
  });
  const texts = ['The shop opens on Monday.', 'Good morning, my friend.', 'The shop opens on Monday.'];
  for (const text of texts) {
    await fetch(`${gateway.url}/api/v1/translate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, source: 'en', target: 'es' }),
    });
  }
}

/** Translations through the gateway until the overview's chart shows a rate (it reads every 2 s). */
async function traffic(page: Page): Promise<void> {
  let going = true;
  const texts = ['Hello world', 'Good morning', 'The vendor ships today', 'Thank you'];
  const load = (async () => {
    for (let n = 0; going; n += 1) {
      await fetch(`${gateway.url}/api/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `${texts[n % texts.length]} ${n}`, source: 'en', target: 'es' }),
      });
    }
  })();
  await waitForText(page.locator('.chart-host + p'), /Now: [1-9]/, 30_000);
  // A few readings more, so the chart draws a line rather than a point.
  await page.waitForFunction(chartHasPoints, 4, { timeout: 30_000 });
  going = false;
  await load;
}

/** Runs in the page (a function, not a string: the console's CSP forbids eval). */
function chartHasPoints(min: number): boolean {
  type Doc = { querySelector(s: string): { getAttribute(name: string): string | null } | null };
  const doc = (globalThis as unknown as { document: Doc }).document;
  return (doc.querySelector('.chart .translations')?.getAttribute('points') ?? '').split(' ').length >= min;
}

const shot = (page: Page, name: string, width: string) =>
  page.screenshot({ path: `${OUT}/${name}-${width}.png`, fullPage: true });

async function pages(page: Page, width: string): Promise<void> {
  await signIn(page, gateway.url, gateway.keys.admin);
  await page.getByRole('table', { name: 'Engines' }).waitFor();
  await traffic(page);
  await shot(page, 'overview', width);

  await page.getByRole('link', { name: 'Dead letters' }).click();
  await page.getByRole('button', { name: 'Show TRANSLATION_FAILED from translation.requested.v1' }).click();
  await waitForText(page.locator('#dl-summary'), '3 matching of 5');
  await page.getByRole('button', { name: 'Replay matching…' }).click();
  await page.getByRole('alertdialog').waitFor();
  await shot(page, 'dead-letters', width);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page
    .getByRole('button', { name: /^Open / })
    .first()
    .click();
  await page.getByRole('table', { name: 'Headers' }).waitFor();
  await shot(page, 'dead-letter-entry', width);

  await page.getByRole('link', { name: 'Translation', exact: true }).click();
  await page.getByLabel('Text', { exact: true }).fill('El vendedor envía el pedido hoy.');
  await page.getByLabel('Source (empty: detect)').fill('es');
  await page.getByRole('button', { name: 'Run the chain' }).click();
  await page.getByRole('table', { name: 'Attempts, in order' }).waitFor();
  await shot(page, 'translation', width);

  await page.getByRole('link', { name: 'Moderation and NLI' }).click();
  await page.getByRole('table', { name: /term\(s\)/ }).waitFor();
  await shot(page, 'moderation', width);

  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('table', { name: /key\(s\)/ }).waitFor();
  await page.getByRole('heading', { name: 'Chat usage per key' }).waitFor();
  await shot(page, 'keys', width);

  await page.getByRole('link', { name: 'Translate', exact: true }).click();
  await page.getByLabel('From').selectOption('en');
  await page.getByLabel('To').selectOption('es');
  await page.getByLabel('Text').fill('The vendor ships the order today.');
  await page.getByRole('button', { name: 'Translate', exact: true }).click();
  await page.locator('.translated').waitFor();
  await shot(page, 'translate', width);
}

it('saves every console page at 1280 and 390 px under docs/console', async () => {
  await mkdir(OUT, { recursive: true });
  for (const size of WIDTHS) {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    await pages(page, size.name).catch(async (err: unknown) => {
      await page.screenshot({ path: `${OUT}/failed-${size.name}.png`, fullPage: true });
      throw err;
    });
    await context.close();
  }
}, 240_000);
