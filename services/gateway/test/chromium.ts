import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The part of playwright-core's API the browser tests drive. playwright-core is loaded at run time
 * so the rest of the suite type-checks and runs on machines without it; these tests fail without it.
 */
export interface Locator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  selectOption(value: string): Promise<unknown>;
  waitFor(options?: { state?: 'visible' | 'hidden' | 'attached'; timeout?: number }): Promise<void>;
  textContent(): Promise<string | null>;
  inputValue(): Promise<string>;
  evaluate<T>(fn: (node: LoadedImage) => T | Promise<T>): Promise<T>;
  allTextContents(): Promise<string[]>;
  getAttribute(name: string): Promise<string | null>;
  count(): Promise<number>;
  first(): Locator;
  nth(index: number): Locator;
  locator(selector: string): Locator;
  filter(options: { hasText: string | RegExp }): Locator;
}
/** What the test reads of an <img> (the test's type-check has no DOM library). */
export interface LoadedImage {
  complete: boolean;
  naturalWidth: number;
  addEventListener(event: 'load' | 'error', listener: () => void): void;
}
export interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  evaluate<T>(fn: () => Promise<T>): Promise<T>;
}
export interface Browser {
  newPage(options: { viewport: { width: number; height: number } }): Promise<Page>;
  close(): Promise<void>;
}
interface Chromium {
  launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
}

/** Debian's chromium package; CHROMIUM_PATH points elsewhere. */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the browser tests put their screenshots (not committed). */
export const outputDirectory = resolve(__dirname, '..', '..', '..', 'test-output');

async function loadChromium(): Promise<Chromium> {
  const moduleName = 'playwright-core';
  let playwright: { chromium: Chromium };
  try {
    playwright = (await import(moduleName)) as { chromium: Chromium };
  } catch (error) {
    throw new Error(
      `The browser test needs the npm package playwright-core (a dev dependency) and Debian's chromium: ${String(error)}`,
      { cause: error },
    );
  }
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `The browser test needs Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
    );
  }
  return playwright.chromium;
}

/** Headless Chromium as root in a closed network: no sandbox, no GPU, none of its own background traffic. */
export async function launchChromium(): Promise<Browser> {
  const chromium = await loadChromium();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The /test page's sign-in and three onboarding steps, with the sizes given. */
export async function onboardOnTestPage(
  page: Page,
  email: string,
  sizes: { topsSize: string; bottomsSize: string; footwearSize: string },
): Promise<void> {
  await page.locator('#login-form [name=email]').fill(email);
  await page.locator('#login-form button').click();

  await page.locator('#step-1').waitFor();
  await page.locator('#step-1 [name=displayName]').fill('Browser Shopper');
  await page.locator('#step-1 button').click();
  await page.locator('#step-2').waitFor();
  for (const [name, value] of [
    ['firstName', 'Ada'],
    ['lastName', 'Lovelace'],
    ['street', '1 Main Street'],
    ['city', 'Austin'],
    ['state', 'TX'],
    ['zip', '78701'],
  ] as const) {
    await page.locator(`#step-2 [name=${name}]`).fill(value);
  }
  await page.locator('#step-2 button').click();
  await page.locator('#step-3').waitFor();
  await page.locator('#step-3 [name=topsSize]').selectOption(sizes.topsSize);
  await page.locator('#step-3 [name=bottomsSize]').fill(sizes.bottomsSize);
  await page.locator('#step-3 [name=footwearSize]').fill(sizes.footwearSize);
  await page.locator('#step-3 button').click();
  await page.locator('#shop').waitFor();
}
