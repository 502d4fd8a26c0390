import { existsSync } from 'node:fs';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../src/auth/session-cookies';
import { startTestStack, TestClient, TestStack } from './stack';

/**
 * The part of playwright-core's API this test drives, loaded at run time as in the chat's browser
 * test, so the suite type-checks without it; this test itself fails without it.
 */
interface Route {
  request(): { url(): string };
  fulfill(response: { status: number; contentType: string; body: string }): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  route(pattern: string, handler: (route: Route) => Promise<void>): Promise<void>;
  locator(selector: string): { click(): Promise<void>; textContent(): Promise<string | null> };
  waitForURL(pattern: (url: URL) => boolean): Promise<void>;
}
interface Context {
  addCookies(cookies: { name: string; value: string; url: string }[]): Promise<void>;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Browser {
  newContext(): Promise<Context>;
  close(): Promise<void>;
}
interface Chromium {
  launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
}

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The agent's redirect URI: nothing listens there, the page's route answers for it. */
const callback = 'http://127.0.0.1:21798/callback';

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  const moduleName = 'playwright-core';
  const { chromium } = (await import(moduleName)) as { chromium: Chromium };
  if (!existsSync(chromiumPath)) throw new Error(`The browser test needs Chromium at ${chromiumPath}`);
  stack = await startTestStack('mcpconsent');
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A registered agent's authorization URL, with PKCE, and how to exchange the code it gets. */
async function agentAsking(name: string, scope: string) {
  const registered = await fetch(`${stack.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [callback] }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${stack.url}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope,
    state: randomUUID(),
    resource: `${stack.url}/mcp`,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const exchange = (code: string) =>
    fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: callback,
        code_verifier: verifier,
      }).toString(),
    });
  return { url, state: params.state, exchange };
}

/** A signed-in shopper's browser on the consent page, the redirect it ends on caught. */
async function consentPage(url: URL) {
  const shopper = new TestClient(stack.url);
  await shopper.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const context = await browser.newContext();
  await context.addCookies(
    [SESSION_COOKIE, REFRESH_COOKIE]
      .filter((name) => shopper.cookie(name) !== undefined)
      .map((name) => ({ name, value: shopper.cookie(name)!, url: stack.url })),
  );
  const page = await context.newPage();
  let landed: URL | undefined;
  await page.route(`${callback}**`, async (route) => {
    landed = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the agent' });
  });
  await page.goto(url.toString());
  return { page, context, shopper, landed: () => landed };
}

describe('the consent page in headless Chromium', () => {
  it("shows the agent's name and scopes; approving sends the agent a code it exchanges for tokens", async () => {
    const agent = await agentAsking('Browser <b>agent</b>', 'catalog orders');
    const { page, context, shopper, landed } = await consentPage(agent.url);
    expect(await page.locator('#agent-name').textContent()).toBe('Browser <b>agent</b>');
    const scopes = await page.locator('#scopes').textContent();
    expect(scopes).toContain('catalog');
    expect(scopes).toContain('orders');
    expect(scopes).not.toContain('checkout');

    await page.locator('#approve').click();
    await page.waitForURL((url) => url.toString().startsWith(callback));
    const back = landed()!;
    expect(back.searchParams.get('state')).toBe(agent.state);
    const tokens = await agent.exchange(back.searchParams.get('code')!);
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe('catalog orders');
    const agents = await shopper.request('GET', '/api/auth/agents');
    expect(agents.json.agents).toEqual([expect.objectContaining({ clientName: 'Browser <b>agent</b>' })]);
    await context.close();
  });

  it('refusing sends the agent access_denied and no code', async () => {
    const agent = await agentAsking('Refused agent', 'cart');
    const { page, context, shopper, landed } = await consentPage(agent.url);
    await page.locator('#refuse').click();
    await page.waitForURL((url) => url.toString().startsWith(callback));
    const back = landed()!;
    expect([back.searchParams.get('error'), back.searchParams.get('code')]).toEqual(['access_denied', null]);
    expect(back.searchParams.get('state')).toBe(agent.state);
    expect((await shopper.request('GET', '/api/auth/agents')).json.agents).toEqual([]);
    await context.close();
  });
});
