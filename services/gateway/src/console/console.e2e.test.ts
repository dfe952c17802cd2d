import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { connectDatabase, OutboxMessage, type Orm } from '@tp/db';
import { DeadLetterIndex } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { addDeadLetters, clearDeadLetters, deadLetter } from '@tp/test/harness/dead-letters';
import {
  isFocused,
  launchChromium,
  SESSION_KEY_ITEM,
  signIn,
  waitForText,
} from '../../test/console-browser.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { BudgetStore } from '../keys/budgets/budget.store.js';
import { CONSOLE_CSP } from './serve-console.js';

// The operator console in a real browser (Debian's chromium through playwright-core) against the real
// gateway, its database, Redis and Kafka. Needs the build: the console's scripts are compiled by tsc.

const codec = new EventCodec();
let gateway: TestGateway;
let orm: Orm;
let index: DeadLetterIndex;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [gateway, browser] = await Promise.all([startTestGateway(), launchChromium()]);
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  index = new DeadLetterIndex(orm);
});

afterAll(async () => {
  await browser?.close();
  await orm?.close(true);
  await gateway?.close();
});

beforeEach(async () => {
  await context?.close();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
});

describe('operator console', () => {
  // A wait that times out fails the test: waitForText() is the assertion that the page shows the text.
  it('serves a static page with a CSP that allows no inline script or style', async () => {
    const res = await fetch(`${gateway.url}/console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    const script = await fetch(`${gateway.url}/console/app/main.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
  });

  it('loads with no request answered 4xx or 5xx: its icon is served, and /favicon.ico is an explicit 204', async () => {
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${gateway.url}/console`);
    await waitForText(page.locator('h2'), 'Sign in');
    const icon = await fetch(`${gateway.url}/console/static/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('/console/static/favicon.svg');
    const ico = await fetch(`${gateway.url}/favicon.ico`);
    expect(ico.status).toBe(204);
    expect(ico.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(failed).toEqual([]);
  });

  it('refuses a wrong key and a client key, and signs in with an admin key kept in sessionStorage', async () => {
    await signIn(page, gateway.url, 'tp_wrong_0123456789abcdef0123456789abcdef');
    expect(await waitForText(page.getByRole('alert'), 'This key was refused.')).toBe('This key was refused.');
    await page.getByLabel('Admin API key').fill(gateway.keys.client);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await waitForText(page.getByRole('alert'), 'This key is not an admin key.')).toBe(
      'This key is not an admin key.',
    );

    await page.getByLabel('Admin API key').fill(gateway.keys.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 2, name: 'Overview' }).waitFor({ state: 'visible' });
    await waitForText(page.getByRole('table', { name: 'Processes and their dependencies' }), 'gateway');
    await page.getByRole('table', { name: 'Engines' }).waitFor({ state: 'visible' });
    await waitForText(page.getByRole('table', { name: 'Queue and consumer lag' }), 'Dead letters');
    expect(page.url()).not.toContain(gateway.keys.admin);
    const stored = await page.evaluate(
      (item) => [sessionStorage.getItem(item), localStorage.length] as const,
      SESSION_KEY_ITEM,
    );
    expect(stored).toEqual([gateway.keys.admin, 0]);
  });

  it('filters dead letters to one kind and replays it after a dry-run count, leaving the other kind', async () => {
    await clearDeadLetters(orm);
    const failed = (m: number) => deadLetter(codec, m, { errorCode: 'TRANSLATION_FAILED' });
    const poison = (m: number) =>
      deadLetter(codec, m, {
        originalTopic: 'content.changed.v1',
        consumerGroup: 'worker.content',
        errorCode: 'MESSAGE_UNDECODABLE',
        payload: Buffer.from([1, 2, 3]),
        headers: {},
      });
    await addDeadLetters(index, [failed(1), poison(2), failed(3), poison(4), poison(5)]);
    await signIn(page, gateway.url, gateway.keys.admin);
    await page.getByRole('link', { name: 'Dead letters' }).click();
    expect(await waitForText(page.locator('#dl-summary'), '5 matching of 5 in the index.')).toBe(
      '5 matching of 5 in the index.',
    );

    await page.getByRole('button', { name: 'Show TRANSLATION_FAILED from translation.requested.v1' }).click();
    expect(await waitForText(page.locator('#dl-summary'), '2 matching of 5 in the index.')).toBe(
      '2 matching of 5 in the index.',
    );
    await page.getByRole('button', { name: 'Replay matching…' }).click();
    await waitForText(page.getByRole('alertdialog'), 'Dry run: replay would take 2 entries');
    expect(await index.count()).toBe(5);
    await page.getByRole('button', { name: 'Confirm replay of 2' }).click();
    await page.getByText('Replayed 2 of 2 selected.').waitFor({ state: 'visible' });

    const left = await index.list({ limit: 10 });
    expect(left.map((e) => e.errorCode)).toEqual(Array(3).fill('MESSAGE_UNDECODABLE'));
    expect(await orm.em.fork().count(OutboxMessage, { topic: 'translation.requested.v1' })).toBe(2);
  });

  it('opens a dead letter with its headers and decoded payload', async () => {
    await clearDeadLetters(orm);
    const [id] = await addDeadLetters(index, [deadLetter(codec, 1)]);
    await signIn(page, gateway.url, gateway.keys.admin);
    await page.getByRole('link', { name: 'Dead letters' }).click();
    await page.getByRole('button', { name: `Open ${id}` }).click();
    expect(await isFocused(page.getByRole('heading', { name: `Dead letter ${id}` }))).toBe(true);
    await waitForText(page.getByRole('table', { name: 'Headers' }), 'tp-event-type');
    await waitForText(page.locator('pre'), '"eventType": "TranslationRequested"');
  });

  it('creates a key shown once, which works until it is revoked', async () => {
    await signIn(page, gateway.url, gateway.keys.admin);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('console-e2e');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    const me = (k: string) =>
      fetch(`${gateway.url}/api/v1/me`, { headers: { authorization: `Bearer ${k}` } });
    expect((await me(key)).status).toBe(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke console-e2e' }).click();
    // The list is drawn again once the revocation has answered: this key's button is gone then (another
    // key of the fixture may have shown "revoked" already).
    await page.getByRole('button', { name: 'Revoke console-e2e' }).waitFor({ state: 'detached' });
    await waitForText(page.getByRole('table', { name: /key\(s\)/ }), 'revoked');
    expect((await me(key)).status).toBe(401);
  });

  it("shows each key's translated characters, today and this month against its budget, and sets a budget at creation", async () => {
    const { id } = await gateway.store.create('client', 'characters-e2e', {
      limits: { charactersPerMonth: 50_000 },
    });
    await new BudgetStore(orm).countCharacters(id, { translated: 1200, cached: 300 }, null);
    await signIn(page, gateway.url, gateway.keys.admin);
    await page.getByRole('link', { name: 'API keys' }).click();
    const row = page.getByRole('row', { name: /characters-e2e/ });
    await waitForText(row, '1,200 of 50,000 (+300 cached)');
    await waitForText(row, '1,200 (+300 cached)');

    await page.getByLabel('Name').fill('budgeted-e2e');
    await page.getByLabel('Characters per month').fill('700');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    const usage = await fetch(`${gateway.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    expect(await usage.json()).toMatchObject({ data: { character_limit: 700, month: { remaining: 700 } } });
    await waitForText(page.getByRole('row', { name: /budgeted-e2e/ }), '0 of 700 (+0 cached)');
  });

  it('fits a 390 px phone: no page scrolls sideways, wide tables scroll in their own box', async () => {
    await context.close();
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    await signIn(page, gateway.url, gateway.keys.admin);
    await page.getByRole('table', { name: 'Engines' }).waitFor();
    const titles = ['Overview', 'Dead letters', 'Translation', 'Moderation and NLI', 'API keys', 'Translate'];
    const overflowing: string[] = [];
    for (const title of titles) {
      await page.getByRole('link', { name: title, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: title }).waitFor();
      await page.locator('main form, main table, main .notice').first().waitFor();
      if (await page.evaluate(pageScrollsSideways)) overflowing.push(title);
    }
    expect(overflowing).toEqual([]);
  });
});

/** Runs in the page: whether the document is wider than the window. */
function pageScrollsSideways(): boolean {
  const { documentElement } = (globalThis as unknown as { document: { documentElement: Element } }).document;
  return documentElement.scrollWidth > documentElement.clientWidth;
}

interface Element {
  readonly scrollWidth: number;
  readonly clientWidth: number;
}
