import { existsSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, launchChromium, LoadedImage, onboardOnTestPage, outputDirectory } from './chromium';
import { startTestStack, TestStack } from './stack';

let stack: TestStack;
let browser: Browser;

/** The loaded width of an image, once it has loaded or failed (0 when it could not be loaded). */
function imageWidth(image: LoadedImage): Promise<number> {
  if (image.complete) return Promise.resolve(image.naturalWidth);
  return new Promise((done) => {
    image.addEventListener('load', () => done(image.naturalWidth));
    image.addEventListener('error', () => done(0));
  });
}

beforeAll(async () => {
  stack = await startTestStack('chatbrowser');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the /test page in headless Chromium', () => {
  // The whole flow, four chat turns in a real browser, needs more than the default 30 s on two shared cores.
  it('logs in, onboards, finds a product in the chat, adds it to the cart and sees it there', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: Error[] = [];
    page.on('pageerror', (error) => pageErrors.push(error));
    await page.goto(`${stack.url}/test`);

    await onboardOnTestPage(page, `${randomUUID().slice(0, 8)}@example.com`, {
      topsSize: 'M',
      bottomsSize: '32',
      footwearSize: '9',
    });
    // The profile as the page's own cookies see it: onboarded, and the wallets provisioned.
    const profile = () =>
      page.evaluate(() =>
        fetch('/api/auth/profile').then(
          (r) => r.json() as Promise<{ onboardingStep: number; walletStatus: string }>,
        ),
      );
    let me = await profile();
    for (let tries = 0; me.walletStatus !== 'active' && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      me = await profile();
    }
    expect(me).toMatchObject({ onboardingStep: 3, walletStatus: 'active' });

    await page.locator('#chat-input').fill('show me hoodies');
    await page.locator('#send').click();

    const reply = page.locator('.message.assistant').first();
    await reply.locator('.memory').filter({ hasText: 'saved preference' }).waitFor();
    await reply
      .locator('.text')
      .filter({ hasText: /hoodie/i })
      .waitFor();
    const cards = reply.locator('.product');
    expect(await cards.count()).toBeGreaterThan(1);
    mkdirSync(outputDirectory, { recursive: true });
    await page.screenshot({ path: resolve(outputDirectory, 'chat-browser-search.png') });

    // Add the first product from its card in the chat.
    const card = cards.first();
    const name = (await card.locator('.name').textContent())!;
    // The card offers the shopper's saved size first, and shows the catalogue's picture.
    expect(await card.locator('[name=size]').inputValue()).toBe('M');
    expect(await card.locator('img').count()).toBe(1);
    expect(await card.locator('img').evaluate(imageWidth)).toBeGreaterThan(0);
    await card.locator('button.add').click();
    await page.locator('#cart-items li').filter({ hasText: name }).waitFor();

    // And let the agent add another one by asking for it, naming the colour of several.
    const secondColor = (await cards.nth(1).locator('[name=color] option').first().textContent())!;
    await page.locator('#chat-input').fill(`add the second one in L in ${secondColor.toLowerCase()}`);
    await page.locator('#send').click();
    await page.locator('.message.assistant').nth(1).locator('[data-tool=addToCart]').waitFor();
    await page.locator('#cart-items li').nth(1).waitFor();
    expect(await page.locator('#cart-items li').count()).toBe(2);
    expect(await page.locator('#cart-count').textContent()).toBe('(2)');

    // The session is listed, named after the first exchange.
    await page
      .locator('#session-list li')
      .filter({ hasText: /hoodie/i })
      .waitFor();

    // Footwear cards offer the saved footwear size.
    await page.locator('#chat-input').fill('show me running shoes');
    await page.locator('#send').click();
    const shoes = page.locator('.message.assistant').nth(2).locator('.product');
    await shoes.first().waitFor();
    expect(await shoes.first().locator('[name=size]').inputValue()).toBe('9');

    // A product's details show as its one card, which adds to the cart like a search's.
    const shoeName = (await shoes.first().locator('.name').textContent())!;
    await page.locator('#chat-input').fill('tell me more about the first one');
    await page.locator('#send').click();
    const details = page.locator('.message.assistant').nth(3).locator('[data-tool=getProductDetails]');
    await details.locator('.product').waitFor();
    expect(await details.locator('.product').count()).toBe(1);
    expect(await details.locator('.product .name').textContent()).toBe(shoeName);
    await details.locator('.product button.add').click();
    await page.locator('#cart-items li').nth(2).waitFor();
    expect(await page.locator('#cart-count').textContent()).toBe('(3)');

    await page.screenshot({ path: resolve(outputDirectory, 'chat-browser.png'), fullPage: true });
    expect(existsSync(resolve(outputDirectory, 'chat-browser.png'))).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
