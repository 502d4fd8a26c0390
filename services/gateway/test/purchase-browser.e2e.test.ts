import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, type SuiSandbox } from '@shop/sandbox-sui';
import { Browser, launchChromium, onboardOnTestPage, outputDirectory, Page } from './chromium';
import { startTestStack, TestStack } from './stack';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
/** Longer than the panel's refresh (a second): it sees the order between approval and delivery. */
const stageDelayMs = 1500;
const webhookSecret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;

let sui: SuiSandbox;
let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await startTestStack(
    'purchasebrowser',
    {
      CHAIN_RPC_URL: sui.url,
      CHAIN_COIN_TYPE: USDC,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      PROVIDER_WEBHOOK_SECRET: webhookSecret,
    },
    {},
    // Each stage's webhook a moment after the last, so the panel is seen following them one by one.
    stageDelayMs,
  );
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await sui?.close();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: resolve(outputDirectory, `purchase-${name}.png`), fullPage: true });

describe('the whole purchase on the /test page in headless Chromium', () => {
  it('funds the wallet on the stand-in chain, buys by chat, approves and sees the order delivered', async () => {
    mkdirSync(outputDirectory, { recursive: true });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const pageErrors: Error[] = [];
    page.on('pageerror', (error) => pageErrors.push(error));
    await page.goto(`${stack.url}/test`);
    await onboardOnTestPage(page, `${randomUUID().slice(0, 8)}@example.com`, {
      topsSize: 'M',
      bottomsSize: '32',
      footwearSize: '9',
    });

    // The wallets appear once provisioned; the provider wallet starts empty.
    await page
      .locator('#sui-address')
      .filter({ hasText: /^0x[0-9a-f]{64}$/ })
      .waitFor();
    expect(await page.locator('#usdc-balance').textContent()).toBe('0 USDC');
    const suiAddress = (await page.locator('#sui-address').textContent())!;

    // Deposit: faucet, the wallet's payment with its receipt, verification, credit.
    await page.locator('#deposit-form [name=amount]').fill('150');
    await page.locator('#deposit').click();
    await page.locator('#deposit-steps [data-step=balance]').waitFor();
    const steps = await page.locator('#deposit-steps li').allTextContents();
    expect(steps.map((step) => step.split(':')[0])).toEqual([
      'Faucet',
      'Payment',
      'Receipt on chain',
      'Verified',
      'Credited',
      'New balance',
    ]);
    expect(await page.locator('#usdc-balance').textContent()).toBe('150 USDC');
    // The test USDC really moved on the stand-in chain: minted to the shopper, paid through the package.
    expect(sui.balance(suiAddress, USDC)).toBe(150_000_000n);
    const deposit = page
      .locator('#order-list li[data-status=delivered]')
      .filter({ hasText: 'Deposit of 150' });
    await deposit.waitFor();
    expect(await deposit.locator('.timeline li.reached').allTextContents()).toEqual([
      expect.stringMatching(/^Crediting · /),
      expect.stringMatching(/^Credited · /),
    ]);
    await shot(page, '1-deposit');

    // Search, then add by chat naming only the colour: the saved tops size is applied.
    await page.locator('#chat-input').fill('show me hoodies');
    await page.locator('#send').click();
    const card = page.locator('.message.assistant').first().locator('.product').first();
    await card.waitFor();
    const name = (await card.locator('.name').textContent())!;
    const color = (await card.locator('[name=color] option').first().textContent())!;
    await page.locator('#chat-input').fill(`add the first one in ${color.toLowerCase()}`);
    await page.locator('#send').click();
    await page.locator('.message.assistant').nth(1).locator('[data-tool=addToCart]').waitFor();
    const item = page.locator('#cart-items li').filter({ hasText: name });
    await item.waitFor();
    expect(await item.locator('.meta').textContent()).toMatch(new RegExp(`size M · ${color}$`));
    await shot(page, '2-cart');

    // Checkout from the chat, whose answer links to the order awaiting approval.
    await page.locator('#chat-input').fill('check out');
    await page.locator('#send').click();
    const link = page.locator('.message.assistant').nth(2).locator('[data-tool=checkout] a.order-link');
    await link.waitFor();
    const orderId = (await link.getAttribute('href'))!.slice('#order-'.length);
    await link.click();
    const order = page.locator(`#order-${orderId}`);
    await order.locator('button.approve').waitFor();
    expect(await order.getAttribute('data-status')).toBe('awaiting_approval');
    await shot(page, '3-awaiting-approval');

    // Approve as the wallet would; the provider pays, ships and delivers, its webhooks move the
    // order, and the panel shows each stage as it arrives, on the same page.
    await order.locator('button.approve').click();
    const between = ['payment_confirmed', 'in_progress'].map(
      (status) => `#order-${orderId}[data-status=${status}]`,
    );
    await page.locator(between.join(', ')).waitFor({ timeout: 20_000 });
    await page.locator(`#order-${orderId}[data-status=delivered]`).waitFor({ timeout: 20_000 });
    expect(await order.locator('.timeline li.reached').allTextContents()).toEqual([
      expect.stringMatching(/^Awaiting approval · /),
      expect.stringMatching(/^Payment confirmed · /),
      expect.stringMatching(/^In progress · /),
      expect.stringMatching(/^Delivered · /),
    ]);
    await shot(page, '4-delivered');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
