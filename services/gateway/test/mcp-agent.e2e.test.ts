import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createRedis, redisReady } from '@shop/redis';
import { REFRESH_COOKIE, SESSION_COOKIE } from '../src/auth/session-cookies';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * An outside agent connecting with the MCP SDK's own client and OAuth provider: discovery from
 * the 401, dynamic registration, the shopper's consent with their session cookie, the code
 * exchange with PKCE, then shopping through the tools, and the shopper's revocation.
 */
let stack: TestStack;
let mcpUrl: URL;

beforeAll(async () => {
  stack = await startTestStack('mcpagent', { RATE_LIMIT_RPM: '100000' });
  mcpUrl = new URL(`${stack.url}/mcp`);
});
afterAll(async () => {
  await stack?.stop();
});

/** Never listened on: the agent reads the code from the redirect's Location instead. */
const redirectUrl = 'http://127.0.0.1:21799/callback';

class DeskAgent implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly stateValue = randomUUID();

  constructor(readonly name = 'Desk assistant') {}

  get redirectUrl(): string {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return this.stateValue;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function shopper({ funded = true } = {}): Promise<{ browser: TestClient; userId: string }> {
  const browser = new TestClient(stack.url);
  await browser.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const profile = await eventually(
    () => browser.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active',
  );
  if (funded) stack.provider.fund(profile.json.evmAddress as string, '100000');
  return { browser, userId: profile.json.userId as string };
}

/** The shopper's browser on a gateway page: their cookies, redirects not followed. */
function asShopper(browser: TestClient, url: string, init: RequestInit = {}): Promise<Response> {
  const cookie = [SESSION_COOKIE, REFRESH_COOKIE]
    .filter((name) => browser.cookie(name) !== undefined)
    .map((name) => `${name}=${browser.cookie(name)}`)
    .join('; ');
  return fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie },
  });
}

const consentIdOf = (html: string) => /name="consent" value="([^"]+)"/.exec(html)?.[1];

/** The shopper answers the consent page the agent sent them to; the redirect it answers with. */
async function answerConsent(browser: TestClient, authorizationUrl: URL, decision: 'approve' | 'refuse') {
  const page = await asShopper(browser, authorizationUrl.toString());
  expect(page.status).toBe(200);
  const html = await page.text();
  const answer = await asShopper(browser, `${authorizationUrl.origin}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ consent: consentIdOf(html)!, decision }).toString(),
  });
  expect(answer.status).toBe(302);
  return { html, location: new URL(answer.headers.get('location')!) };
}

/** An agent connected through the SDK's whole authorization flow, approved by `browser`'s shopper. */
async function connectAgent(browser: TestClient, agent = new DeskAgent()) {
  const first = new Client({ name: 'desk-assistant', version: '1.0.0' });
  const unauthorized = new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent });
  await expect(first.connect(unauthorized)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(agent.authorizationUrl).toBeDefined();
  const { html, location } = await answerConsent(browser, agent.authorizationUrl!, 'approve');
  expect(location.searchParams.get('state')).toBe(agent.stateValue);
  await unauthorized.finishAuth(location.searchParams.get('code')!);
  const client = new Client({ name: 'desk-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent }));
  return { client, agent, consentHtml: html };
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent: Record<string, unknown>;
  };

/** A refusal, as the chat's tool failures are; in the text alone, which the SDK's client never checks. */
function failureOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [content] = result.content;
  return JSON.parse((content as { text: string }).text) as Record<string, unknown>;
}

const mcpPost = (token: string | undefined, body: unknown, url: URL = mcpUrl) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const callTool = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** The authorization flow by hand (no SDK), for tokens of a chosen scope or to tamper with a step. */
async function authorizeByHand(browser: TestClient, scope: string, base = stack.url) {
  // Registered at the first gateway: a client is on the stream, so every gateway knows it.
  const registered = await fetch(`${stack.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Catalog reader', redirect_uris: [redirectUrl] }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const url = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUrl,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    state: 'hand',
    resource: `${base}/mcp`,
  }))
    url.searchParams.set(name, value);
  const { location } = await answerConsent(browser, url, 'approve');
  const exchange = (form: Record<string, string>) =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const codeForm = {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: location.searchParams.get('code')!,
    redirect_uri: redirectUrl,
    code_verifier: verifier,
    resource: `${base}/mcp`,
  };
  return { clientId, codeForm, exchange };
}

const product = (n: number) => ({
  productId: `B0MCP${String(n).padStart(5, '0')}`,
  productName: `Trail shoe ${n}`,
  price: 4999,
  image: `https://images.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/dp/${n}`,
  retailer: 'Example Outfitters',
});

describe('an outside agent over MCP, with the shopper consent', () => {
  it('discovers, registers, is approved, exchanges its code with PKCE, shops and checks out once, then is revoked', async () => {
    const { browser, userId } = await shopper();
    const { client, agent, consentHtml } = await connectAgent(browser);
    expect(consentHtml).toContain('Desk assistant');
    for (const scope of ['catalog', 'cart', 'checkout', 'orders'])
      expect(consentHtml).toContain(`<strong>${scope}</strong>`);
    expect(agent.saved).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      refresh_token: expect.any(String),
    });

    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'add_to_cart',
        'checkout',
        'compare_products',
        'get_order',
        'get_product_details',
        'list_orders',
        'remove_from_cart',
        'search_products',
        'view_cart',
      ].sort(),
    );
    expect(byName.get('search_products')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('remove_from_cart')!.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get('checkout')!.outputSchema).toMatchObject({ type: 'object' });

    const found = await call(client, 'search_products', { query: 'shoes' });
    expect(found.isError).toBeFalsy();
    const [first] = found.structuredContent.products as Array<Record<string, unknown>>;
    expect(first).toBeDefined();

    const added = await call(client, 'add_to_cart', {
      productId: first!.productId,
      productName: first!.productName,
      price: first!.price,
      image: first!.image,
      productUrl: first!.productUrl,
      retailer: first!.retailer,
    });
    expect(added.isError).toBeFalsy();
    const itemId = (added.structuredContent.item as { id: string }).id;
    const cart = await call(client, 'view_cart');
    expect((cart.structuredContent.items as Array<{ id: string }>).map((i) => i.id)).toEqual([itemId]);
    // The frontend sees the agent's change.
    expect(
      ((await browser.request('GET', '/api/cart')).json.items as Array<{ id: string }>).map((i) => i.id),
    ).toEqual([itemId]);

    const idempotencyKey = randomUUID();
    const checkedOut = await call(client, 'checkout', { cartItemId: itemId, idempotencyKey });
    expect(checkedOut.isError).toBeFalsy();
    expect(checkedOut.structuredContent).not.toHaveProperty('serializedTransaction');
    const orderId = checkedOut.structuredContent.orderId as string;
    // Outside production with no ORDER_APPROVAL_URL, the link opens the test page at the order.
    const approvalUrl = `${stack.url}/test#order-${orderId}`;
    expect(checkedOut.structuredContent.approvalUrl).toBe(approvalUrl);
    expect(checkedOut.content).toEqual([
      expect.objectContaining({ text: expect.stringContaining(approvalUrl) }),
    ]);
    expect((await fetch(approvalUrl)).status).toBe(200);
    const retried = await call(client, 'checkout', { cartItemId: itemId, idempotencyKey });
    expect(retried.structuredContent.orderId).toBe(orderId);

    // The order tells who placed it, to the agent and in the shopper's own list.
    const clientId = agent.information!.client_id;
    const placed = {
      orderId,
      status: 'awaiting_approval',
      agent: { clientId, clientName: 'Desk assistant' },
    };
    const orders = await call(client, 'list_orders');
    expect(orders.structuredContent.orders).toEqual([expect.objectContaining(placed)]);
    expect((await browser.request('GET', '/api/orders')).json.orders).toEqual([
      expect.objectContaining(placed),
    ]);
    const one = await call(client, 'get_order', { orderId });
    expect(one.structuredContent.order).toMatchObject(placed);
    expect((await browser.request('GET', `/api/orders/${orderId}`)).json).toMatchObject(placed);

    // Every command the agent issued records it, next to the shopper.
    const cartEvents = (await stack.store.load('cart', userId)).events;
    const orderEvents = (await stack.store.load('order', orderId)).events;
    for (const event of [
      ...cartEvents.filter((e) => e.type === 'ItemAdded'),
      ...orderEvents.filter((e) => e.type === 'OrderCreated'),
    ])
      expect(event.actor).toEqual({ kind: 'user', id: userId, agentClientId: clientId });

    // The shopper sees the agent on their profile and disconnects it: its next call is refused.
    const connected = await browser.request('GET', '/api/auth/agents');
    expect(connected.json.agents).toEqual([
      expect.objectContaining({
        clientId,
        clientName: 'Desk assistant',
        scopes: ['catalog', 'cart', 'checkout', 'orders'],
      }),
    ]);
    const grantId = (connected.json.agents as Array<{ grantId: string }>)[0]!.grantId;
    expect((await browser.request('DELETE', `/api/auth/agents/${grantId}`)).status).toBe(204);
    expect((await browser.request('GET', '/api/auth/agents')).json.agents).toEqual([]);
    const refused = await mcpPost(agent.saved!.access_token, listTools);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="${stack.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    // The SDK's client tries its refresh token, which the revoked grant no longer honours.
    await expect(client.listTools()).rejects.toThrow(/^Invalid grant: refresh token is invalid/);
    await client.close();
  });

  it('answers a tool refused by the shop as a result the agent can read', async () => {
    const { browser } = await shopper();
    const { client } = await connectAgent(browser);
    for (let n = 0; n < 10; n++) expect((await call(client, 'add_to_cart', product(n))).isError).toBeFalsy();
    const eleventh = await call(client, 'add_to_cart', product(10));
    expect(failureOf(eleventh)).toEqual({
      success: false,
      code: 'CartFullError',
      message: expect.any(String),
    });
    const missing = await call(client, 'checkout', { cartItemId: randomUUID(), idempotencyKey: 'k' });
    expect(failureOf(missing)).toMatchObject({ success: false, code: 'CartItemNotFoundError' });
    await client.close();
  });

  it("links the checkout to the operator's approval page when ORDER_APPROVAL_URL names one", async () => {
    const gateway = await stack.startGateway({
      ORDER_APPROVAL_URL: 'https://shop.example.com/orders/{orderId}/approve',
    });
    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'checkout', gateway);
    const { access_token: token } = (await (await exchange(codeForm)).json()) as { access_token: string };
    const item = await browser.request('POST', '/api/cart', product(1));
    const answer = (await (
      await mcpPost(
        token,
        callTool('checkout', { cartItemId: item.json.id, idempotencyKey: randomUUID() }),
        new URL(`${gateway}/mcp`),
      )
    ).json()) as { result: CallToolResult & { structuredContent: Record<string, unknown> } };
    const { orderId, approvalUrl } = answer.result.structuredContent;
    expect(approvalUrl).toBe(`https://shop.example.com/orders/${orderId as string}/approve`);
    expect(answer.result.content).toEqual([
      expect.objectContaining({ text: expect.stringContaining(approvalUrl as string) }),
    ]);
  });

  it('lists every tool with its hints and schemas, and answers product details and comparisons as their schemas say', async () => {
    const { browser } = await shopper();
    const { client } = await connectAgent(browser);
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(
      tools.map(({ name, annotations }) => [
        name,
        [annotations?.readOnlyHint, annotations?.destructiveHint, annotations?.idempotentHint],
      ]),
    );
    const reads = [true, false, true];
    expect(hints).toEqual({
      search_products: reads,
      get_product_details: reads,
      compare_products: reads,
      view_cart: reads,
      add_to_cart: [false, false, false],
      remove_from_cart: [false, true, true],
      checkout: [false, false, true],
      list_orders: reads,
      get_order: reads,
    });
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object' });
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }

    const validator = new AjvJsonSchemaValidator();
    const conforming = async (name: string, args: Record<string, unknown>) => {
      const result = await call(client, name, args);
      expect(result.isError, name).toBeFalsy();
      const schema = tools.find((tool) => tool.name === name)!.outputSchema!;
      expect(validator.getValidator(schema)(result.structuredContent).errorMessage, name).toBeUndefined();
      return result.structuredContent;
    };
    const found = await conforming('search_products', { query: 'shoes' });
    const [first, second] = found.products as Array<{ productId: string; productName: string }>;
    const details = await conforming('get_product_details', { productId: first!.productId });
    expect(details.product).toMatchObject({ productId: first!.productId, productName: first!.productName });
    expect(await conforming('get_product_details', { productId: 'B0NOSUCH00' })).toEqual({ product: null });
    const compared = await conforming('compare_products', {
      productIds: [first!.productId, second!.productId, 'B0NOSUCH00'],
    });
    expect(compared.products).toEqual([
      expect.objectContaining({ productId: first!.productId }),
      expect.objectContaining({ productId: second!.productId }),
      null,
    ]);
    await client.close();
  });

  it('removes a cart item, and answers the onboarding gate, a duplicate item and an unfunded checkout as results the agent can read', async () => {
    const refusal = (result: CallToolResult, code: string) =>
      expect(failureOf(result)).toEqual({ success: false, code, message: expect.any(String) });

    const { browser } = await shopper({ funded: false });
    const { client } = await connectAgent(browser);
    // Listed first, as agents do: the SDK's client then checks each result against its schema.
    await client.listTools();
    const added = await call(client, 'add_to_cart', product(1));
    const itemId = (added.structuredContent.item as { id: string }).id;
    refusal(await call(client, 'add_to_cart', product(1)), 'CartDuplicateItemError');
    const unfunded = await call(client, 'checkout', { cartItemId: itemId, idempotencyKey: randomUUID() });
    refusal(unfunded, 'InsufficientFundsError');
    expect((await browser.request('GET', '/api/orders')).json.orders).toEqual([]);
    expect(await call(client, 'remove_from_cart', { itemId })).toMatchObject({
      structuredContent: { itemId, removed: true },
    });
    expect((await call(client, 'view_cart')).structuredContent.items).toEqual([]);
    await client.close();

    // Signed in but not through onboarding: the consent works, the gated tools answer why not.
    const newcomer = new TestClient(stack.url);
    expect(
      (await newcomer.request('POST', '/api/dev/login', { email: `${randomUUID().slice(0, 8)}@example.com` }))
        .status,
    ).toBe(200);
    const gated = (await connectAgent(newcomer)).client;
    await gated.listTools();
    expect((await call(gated, 'search_products', { query: 'shoes' })).isError).toBeFalsy();
    refusal(await call(gated, 'view_cart'), 'ONBOARDING_INCOMPLETE');
    refusal(await call(gated, 'add_to_cart', product(2)), 'ONBOARDING_INCOMPLETE');
    await gated.close();
  });

  it('refuses a tool whose scope the token lacks, with the step-up challenge', async () => {
    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'catalog');
    const tokens = (await (await exchange(codeForm)).json()) as { access_token: string; scope: string };
    expect(tokens.scope).toBe('catalog');
    const search = await mcpPost(tokens.access_token, callTool('search_products', { query: 'shoes' }));
    expect(search.status).toBe(200);
    const cart = await mcpPost(tokens.access_token, callTool('view_cart'));
    expect(cart.status).toBe(403);
    expect(cart.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="cart"');
  });

  it("never lets one shopper's token reach another shopper's cart or orders", async () => {
    const alice = await shopper();
    const bob = await shopper();
    const aliceItem = await alice.browser.request('POST', '/api/cart', product(1));
    const aliceOrder = await alice.browser.request('POST', '/api/checkout', {
      cartItemId: aliceItem.json.id,
    });
    expect(aliceOrder.status).toBe(201);
    // Placed in the shop by the shopper: no agent.
    expect((await alice.browser.request('GET', '/api/orders')).json.orders).toEqual([
      expect.objectContaining({ orderId: aliceOrder.json.orderId, agent: null }),
    ]);
    const { client } = await connectAgent(bob.browser);
    expect((await call(client, 'view_cart')).structuredContent.items).toEqual([]);
    expect((await call(client, 'list_orders')).structuredContent.orders).toEqual([]);
    const order = await call(client, 'get_order', { orderId: aliceOrder.json.orderId });
    expect(failureOf(order)).toMatchObject({ success: false, code: 'OrderNotFoundError' });
    const removed = await call(client, 'remove_from_cart', { itemId: aliceItem.json.id });
    expect(removed.isError).toBe(true);
    const checkout = await call(client, 'checkout', { cartItemId: aliceItem.json.id, idempotencyKey: 'x' });
    expect(failureOf(checkout)).toMatchObject({ success: false, code: 'CartItemNotFoundError' });
    expect(((await alice.browser.request('GET', '/api/cart')).json.items as unknown[]).length).toBe(1);
    await client.close();
  });

  it('answers 401 with the challenge to a missing, forged or other-audience token, and to a spent or tampered code', async () => {
    const none = await mcpPost(undefined, listTools);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect((await mcpPost(randomBytes(32).toString('base64url'), listTools)).status).toBe(401);
    const foreignPage = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example.com' },
      body: JSON.stringify(listTools),
    });
    expect(foreignPage.status).toBe(403);

    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'catalog cart');
    expect((await exchange({ ...codeForm, code_verifier: pkce().verifier })).status).toBe(400);
    // A failed verifier spends the code too, so it cannot be guessed at.
    const spent = await exchange(codeForm);
    expect([spent.status, ((await spent.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);

    // PKCE is S256 or nothing: a plain challenge goes back to the agent as invalid_request.
    const plain = new URL(`${stack.url}/oauth/authorize`);
    plain.search = new URLSearchParams({
      response_type: 'code',
      client_id: codeForm.client_id,
      redirect_uri: redirectUrl,
      code_challenge: 'plain-challenge-plain-challenge-plain-challenge-00',
      code_challenge_method: 'plain',
    }).toString();
    const refusedPlain = await asShopper(browser, plain.toString());
    expect(refusedPlain.status).toBe(302);
    expect(new URL(refusedPlain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const second = await authorizeByHand(browser, 'catalog');
    const wrongAudience = await second.exchange({
      ...second.codeForm,
      resource: 'https://elsewhere.example.com/mcp',
    });
    expect([wrongAudience.status, ((await wrongAudience.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_target',
    ]);
    // The same token presented at another host name of the server (another resource) is refused.
    const tokens = (await (await second.exchange(second.codeForm)).json()) as { access_token: string };
    expect((await mcpPost(tokens.access_token, listTools)).status).toBe(200);
    // Another Host header is another resource (undici's fetch would replace the header).
    const otherHost = await request(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.access_token}`,
        host: 'other.example.com',
      },
      body: JSON.stringify(listTools),
    });
    await otherHost.body.dump();
    expect(otherHost.statusCode).toBe(401);
  });

  it('answers 401 to an access token whose life has run out', async () => {
    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'catalog');
    const tokens = (await (await exchange(codeForm)).json()) as { access_token: string; expires_in: number };
    expect(tokens.expires_in).toBeGreaterThan(590);
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect((await mcpPost(tokens.access_token, listTools)).status).toBe(200);
    // An access token lives as long as its Redis entry: end that life now rather than wait 10 minutes.
    const redis = createRedis(stack.env.env.REDIS_URL!, stack.env.env.REDIS_KEY_PREFIX!);
    expect(await redisReady(redis)).toBe(true);
    const key = `agent:access:${createHash('sha256').update(tokens.access_token).digest('hex')}`;
    expect(await redis.pexpire(key, 1)).toBe(1);
    await eventually(
      () => redis.exists(key),
      (n) => n === 0,
    );
    redis.disconnect();
    const expired = await mcpPost(tokens.access_token, listTools);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('gives each grant the request budget of a signed-in shopper', async () => {
    const limited = await stack.startGateway({ RATE_LIMIT_RPM: '3' });
    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'catalog', limited);
    const { access_token: token } = (await (await exchange(codeForm)).json()) as { access_token: string };
    const statuses = [];
    for (let n = 0; n < 4; n++)
      statuses.push((await mcpPost(token, listTools, new URL(`${limited}/mcp`))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Registrations are events anyone may cause: each address has the same budget. Seven within a
    // minute fall in at most two of the limiter's windows, so one window sees four of them.
    const registrations = [];
    for (let n = 0; n < 7; n++)
      registrations.push(
        (
          await fetch(`${limited}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_name: 'Eager agent', redirect_uris: [redirectUrl] }),
          })
        ).status,
      );
    expect(registrations).toContain(429);
  });

  it('documents the MCP endpoint and the OAuth endpoints in /doc', async () => {
    const doc = (await (await fetch(`${stack.url}/doc`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    for (const path of [
      '/mcp',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/authorize',
      '/oauth/token',
      '/oauth/revoke',
      '/api/auth/agents',
    ])
      expect(doc.paths, path).toHaveProperty([path]);
    expect(Object.keys(doc.paths['/oauth/token']!.post!.requestBody!.content)).toEqual([
      'application/x-www-form-urlencoded',
    ]);
  });

  it('refreshes once per refresh token; a spent refresh token coming back revokes the grant', async () => {
    const { browser } = await shopper();
    const { clientId, codeForm, exchange } = await authorizeByHand(browser, 'catalog');
    const first = (await (await exchange(codeForm)).json()) as {
      refresh_token: string;
      access_token: string;
    };
    const refresh = (token: string) =>
      exchange({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token });
    const renewed = await refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    const second = (await renewed.json()) as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
    };
    expect(second.expires_in).toBeLessThanOrEqual(600);
    expect((await mcpPost(second.access_token, listTools)).status).toBe(200);
    expect((await refresh(first.refresh_token)).status).toBe(400);
    expect((await mcpPost(second.access_token, listTools)).status).toBe(401);
    expect((await refresh(second.refresh_token)).status).toBe(400);
  });

  it("ends a closed account's agents: their tokens are 401 and their refresh tokens renew nothing", async () => {
    const { browser } = await shopper();
    const { clientId, codeForm, exchange } = await authorizeByHand(browser, 'catalog');
    const tokens = (await (await exchange(codeForm)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect((await browser.request('DELETE', '/api/auth/account')).status).toBe(200);
    expect((await mcpPost(tokens.access_token, listTools)).status).toBe(401);
    const refreshed = await exchange({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(400);
  });

  it('spends a code once however many exchanges race for it; racing refreshes of one token renew at most once and end the grant', async () => {
    const { browser } = await shopper();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 4 }), async (racers) => {
        const { clientId, codeForm, exchange } = await authorizeByHand(browser, 'catalog');
        const exchanges = await Promise.all(Array.from({ length: racers }, () => exchange(codeForm)));
        const won = exchanges.filter((answer) => answer.status === 200);
        expect(won).toHaveLength(1);
        const tokens = (await won[0]!.json()) as { access_token: string; refresh_token: string };
        const refreshes = await Promise.all(
          Array.from({ length: racers }, () =>
            exchange({
              grant_type: 'refresh_token',
              client_id: clientId,
              refresh_token: tokens.refresh_token,
            }),
          ),
        );
        const renewed = refreshes.filter((answer) => answer.status === 200);
        expect(renewed.length).toBeLessThanOrEqual(1);
        // A refresh token presented twice has leaked: the grant ends, whichever racer won.
        const issued = [tokens, ...(await Promise.all(renewed.map((answer) => answer.json())))] as {
          access_token: string;
        }[];
        for (const { access_token: token } of issued)
          expect((await mcpPost(token, listTools)).status).toBe(401);
      }),
      { numRuns: 4 },
    );
  });

  it('makes one order for concurrent and retried checkout calls under one idempotency key', async () => {
    const { browser } = await shopper();
    const { codeForm, exchange } = await authorizeByHand(browser, 'checkout orders');
    const { access_token: token } = (await (await exchange(codeForm)).json()) as { access_token: string };
    type Answer = { result: CallToolResult & { structuredContent: { orderId?: string } } };
    let n = 100;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 4 }), async (racers) => {
        const item = await browser.request('POST', '/api/cart', product(n++));
        const key = randomUUID();
        const checkout = () =>
          mcpPost(token, callTool('checkout', { cartItemId: item.json.id, idempotencyKey: key })).then(
            (answer) => answer.json() as Promise<Answer>,
          );
        const answers = (await Promise.all(Array.from({ length: racers }, checkout))).map((a) => a.result);
        // A call racing the one placing the order is told so (as POST /api/checkout answers 409).
        const placed = answers.filter((answer) => !answer.isError).map((a) => a.structuredContent.orderId);
        const refused = answers.filter((answer) => answer.isError).map((a) => failureOf(a).code);
        expect(new Set(placed).size).toBe(1);
        expect(refused.every((code) => code === 'CONFLICT')).toBe(true);
        const retried = await checkout();
        expect(retried.result.structuredContent.orderId).toBe(placed[0]);
      }),
      { numRuns: 3 },
    );
    const orders = (await browser.request('GET', '/api/orders')).json.orders as unknown[];
    expect(orders).toHaveLength(3);
  });

  it('sends the agent access_denied when the shopper refuses, and grants nothing', async () => {
    const { browser } = await shopper();
    const agent = new DeskAgent('Unwanted agent');
    const client = new Client({ name: 'unwanted', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const signedOut = await fetch(agent.authorizationUrl!);
    expect([signedOut.status, signedOut.headers.get('content-type')]).toEqual([
      401,
      'text/html; charset=utf-8',
    ]);
    expect(await signedOut.text()).toContain('Sign in to the shop');
    const { html, location } = await answerConsent(browser, agent.authorizationUrl!, 'refuse');
    expect(html).toContain('Unwanted agent');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('code')).toBeNull();
    expect((await browser.request('GET', '/api/auth/agents')).json.agents).toEqual([]);
  });
});
