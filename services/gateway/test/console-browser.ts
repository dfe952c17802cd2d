import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

import { REPO_ROOT } from '@tp/test/harness/processes';

/** Debian's chromium; playwright-core drives it and downloads no browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless chromium, installed with apt-get first when it is missing (scripts/chromium.sh). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    execFileSync('bash', [`${REPO_ROOT}scripts/chromium.sh`, 'install'], { stdio: 'inherit' });
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false });
}

/** The key of the session the console keeps (sessionStorage only). */
export const SESSION_KEY_ITEM = 'tp-console-admin-key';

/** Opens the console and signs in with `key`; resolves once the form was sent. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('Admin API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Waits until an element of `locator` shows `text` (a substring or a pattern), then returns its whole
 * text: playwright-core has no expect(), so tests wait for the element and assert on what it says.
 */
export async function waitForText(
  locator: Locator,
  text: string | RegExp,
  timeout = 15_000,
): Promise<string> {
  const match = locator.filter({ hasText: text }).first();
  await match.waitFor({ state: 'visible', timeout });
  return (await match.textContent()) ?? '';
}

/** Whether the element (after it appears) has the keyboard focus. */
export async function isFocused(locator: Locator): Promise<boolean> {
  await locator.waitFor({ state: 'visible' });
  return locator.evaluate((el) => el === el.ownerDocument.activeElement);
}
