import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedSession } from '@shop/sandbox-provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { testDataEncryptionKey } from '@shop/testing';
import { FrontendBrowser, onboardLikeTheFrontend } from './frontend-browser';
import { readChatLikeTheFrontend } from './frontend-chat-reader';
import { acceptCheckout, cartBodyOf, productCardsOf, productToolResults } from './frontend-shopping-rules';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * The existing frontend signs people in with the provider's browser SDK, which keeps the session
 * in two cookies of its own on the frontend's origin; the frontend forwards them with every API
 * call and never calls POST /api/auth/session. These tests sign in exactly so: the SDK's cookies
 * only, from the frontend's origin with credentials.
 */
const SDK_JWT = 'crossmint-jwt';
const SDK_REFRESH = 'crossmint-refresh-token';
/** The coin the frontend hard-codes for deposits (lib/api/sui-deposit.ts). */
const TESTNET_USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';

let stack: TestStack;
let sui: SuiSandbox;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await startTestStack('browsersdk', {
    CHAIN_RPC_URL: sui.url,
    // What npm start wires: the coin the Sui stand-in pays in by default.
    CHAIN_COIN_TYPE: sui.coinType,
    CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
    RATE_LIMIT_RPM: '100000',
    // The property below refreshes many times from this machine; the limit has its own test.
    SESSION_REFRESH_RATE_LIMIT_RPM: '100000',
  });
});
afterAll(async () => {
  await stack?.stop();
  await sui?.close();
});

/** What the SDK does after a login: writes the provider's JWT and refresh token to `document.cookie`. */
function sdkSignIn(browser: FrontendBrowser | TestClient, issued: IssuedSession): void {
  browser.setCookie(SDK_JWT, issued.jwt);
  browser.setCookie(SDK_REFRESH, issued.refresh.secret);
}

const uniqueEmail = () => `${randomUUID().slice(0, 8)}@example.com`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The attributes of the cookie `name` in a response's Set-Cookie lines, lower-cased, without its value. */
function attributesOf(setCookies: string[], name: string): string[] | undefined {
  const line = setCookies.find((cookie) => cookie.startsWith(`${name}=`));
  return line
    ?.split(';')
    .slice(1)
    .map((attribute) => attribute.trim().toLowerCase());
}

describe("the frontend's browser, signed in by the provider's SDK", () => {
  it('registers the user on the first call, provisions wallets, and every route the frontend calls answers what it accepts', async () => {
    const browser = new FrontendBrowser(stack.url);
    const email = uniqueEmail();
    const issued = await stack.provider.issueToken(email);
    sdkSignIn(browser, issued);

    // The login page and the guard ask for the onboarding status first (lib/api/onboarding.ts).
    const status = await browser.call('GET', '/api/onboarding/status');
    expect([status.status, status.json]).toEqual([200, { step: 0, completed: false }]);

    // The header's user menu (components/layout/UserMenu.tsx): email, wallet address and status.
    const profile = await eventually(
      () => browser.call('GET', '/api/auth/profile'),
      (answer) => answer.json.walletStatus === 'active',
    );
    expect(profile.status).toBe(200);
    expect(profile.json).toMatchObject({
      email,
      onboardingStep: 0,
      walletStatus: 'active',
      walletAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      evmAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
    const userEvents = (await stack.store.load('user', profile.json.userId as string)).events.map(
      (e) => e.type,
    );
    expect(userEvents.filter((type) => type === 'UserRegistered')).toHaveLength(1);

    await onboardLikeTheFrontend(browser);
    expect((await browser.call('GET', '/api/onboarding/status')).json).toEqual({ step: 3, completed: true });

    // The chat (lib/chat/use-sse-chat.ts): a session first, then the turn with its own body shape.
    const session = await browser.call('POST', '/api/sessions', {});
    expect(session.status).toBe(201);
    expect(session.json).toMatchObject({ id: expect.any(String) });
    const sessionId = session.json.id as string;
    const turn = await browser.fetch('/api/chat', {
      method: 'POST',
      body: { messages: [{ role: 'user', content: 'show me running shoes under $120' }], sessionId },
    });
    expect(turn.status).toBe(200);
    const view = await readChatLikeTheFrontend(turn.body!);
    expect([view.errors, view.done]).toEqual([[], true]);
    const results = productToolResults(view);
    expect(results.length).toBeGreaterThan(0);
    const cards = productCardsOf(results[0]!.result);
    expect(cards.length).toBeGreaterThan(1);

    // The sessions sidebar: list (limit 100), open one, delete one (lib/api/sessions.ts).
    const sessions = await browser.call('GET', '/api/sessions?limit=100');
    expect(sessions.status).toBe(200);
    expect((sessions.json.sessions as { id: string }[]).map((s) => s.id)).toContain(sessionId);
    const opened = await browser.call('GET', `/api/sessions/${sessionId}`);
    expect(opened.status).toBe(200);
    expect(opened.json).toMatchObject({ id: sessionId, messages: expect.any(Array) });
    expect((opened.json.messages as unknown[]).length).toBeGreaterThanOrEqual(2);

    // The product card's add button (lib/api/cart.ts keeps `created.id` as the backend id).
    const added = await browser.call('POST', '/api/cart', cartBodyOf(cards[0]!));
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ id: expect.any(String), productId: cards[0]!.id });
    const second = await browser.call('POST', '/api/cart', cartBodyOf(cards[1]!));
    expect(second.status).toBe(201);
    // The cart hydrator reads items[].{id, productId, productName, price, image, retailer}.
    const cart = await browser.call('GET', '/api/cart');
    expect(cart.status).toBe(200);
    expect(cart.json.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: added.json.id,
          productId: cards[0]!.id,
          productName: cards[0]!.name,
          price: cards[0]!.price,
        }),
      ]),
    );
    const removed = await browser.call('DELETE', `/api/cart/${second.json.id as string}`);
    expect(removed.status).toBe(204);
    expect(
      ((await browser.call('GET', '/api/cart')).json.items as { id: string }[]).map((item) => item.id),
    ).toEqual([added.json.id]);

    // The deposit modal (components/ui/DepositModal.tsx): the stand-in's payment to the user's
    // Sui wallet, verified with the frontend's body and its hard-coded testnet USDC; it shows
    // success when `success` is true.
    expect(sui.coinType).toBe(TESTNET_USDC);
    const nonce = randomUUID();
    const txDigest = sui.createPayment({
      payer: '0x'.padEnd(66, '7'),
      receiver: profile.json.walletAddress as string,
      amountMist: 500_000_000n,
      nonce,
    });
    const deposit = await browser.call('POST', '/api/deposit/verify', {
      txDigest,
      nonce,
      amount: '500000000',
      coinType: TESTNET_USDC,
    });
    expect(deposit.status).toBe(200);
    expect(deposit.json).toMatchObject({ success: true, txDigest });

    // The checkout modal's guard (lib/api/checkout.ts isCheckoutResponse), funded by the deposit.
    const checkout = await browser.call('POST', '/api/checkout', { cartItemId: added.json.id });
    expect(checkout.status).toBe(201);
    const accepted = acceptCheckout(checkout.json);
    expect(accepted).toEqual({ orderId: checkout.json.orderId, crossmintOrderId: expect.any(String) });
    const orderId = checkout.json.orderId as string;

    // The checkout modal polls one order by its status and phase; the orders sidebar lists them.
    const order = await browser.call('GET', `/api/orders/${orderId}`);
    expect(order.status).toBe(200);
    expect(order.json).toMatchObject({
      orderId,
      status: expect.any(String),
      phase: expect.any(String),
      type: expect.any(String),
      createdAt: expect.any(String),
    });
    const orders = await browser.call('GET', '/api/orders?limit=50');
    expect(orders.status).toBe(200);
    const listed = orders.json.orders as { orderId: string; type: string }[];
    expect(listed.map((o) => o.orderId)).toContain(orderId);
    expect(listed.map((o) => o.type)).toContain('deposit');

    const deleted = await browser.call('DELETE', `/api/sessions/${sessionId}`);
    expect(deleted.status).toBe(204);
    expect((await browser.call('GET', `/api/sessions/${sessionId}`)).status).toBe(404);

    // The SDK's logout removes its cookies itself, then posts to logoutRoute; the gateway clears
    // both families, so a browser that still had them is signed out too.
    const logout = await browser.fetch('/api/auth/logout', { method: 'POST' });
    expect([logout.status, await logout.json()]).toEqual([200, { success: true }]);
    const cleared = logout.headers.getSetCookie().map((line) => line.split('=')[0]);
    expect(cleared).toEqual(
      expect.arrayContaining([SDK_JWT, SDK_REFRESH, 'provider-jwt', 'provider-refresh-token']),
    );
    expect([browser.cookie(SDK_JWT), browser.cookie(SDK_REFRESH)]).toEqual([undefined, undefined]);
    expect((await browser.call('GET', '/api/auth/profile')).status).toBe(401);
  });

  it("registers and provisions once when a new user's first page fires ten requests at once, over two gateways", async () => {
    const issued = await stack.provider.issueToken(uniqueEmail());
    const second = await stack.startGateway();
    const pages = Array.from({ length: 10 }, (_, i) => {
      const page = new FrontendBrowser(i % 2 === 0 ? stack.url : second);
      sdkSignIn(page, issued);
      return page;
    });
    const answers = await Promise.all(
      pages.map((page, i) => page.call('GET', i % 2 === 0 ? '/api/onboarding/status' : '/api/auth/profile')),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    const profile = await eventually(
      () => pages[0]!.call('GET', '/api/auth/profile'),
      (answer) => answer.json.walletStatus === 'active',
    );
    const events = (await stack.store.load('user', profile.json.userId as string)).events.map((e) => e.type);
    expect(events).toEqual(['UserRegistered', 'WalletProvisioningStarted', 'WalletProvisioned']);
  });

  it('refreshes an expired SDK JWT and rotates the pair under the SDK names, with attributes its script can use', async () => {
    const browser = new FrontendBrowser(stack.url);
    const email = uniqueEmail();
    const issued = await stack.provider.issueToken(email, { ttlSeconds: 2 });
    sdkSignIn(browser, issued);
    expect((await browser.call('GET', '/api/auth/profile')).status).toBe(200);
    await sleep(2100);

    const response = await browser.fetch('/api/auth/profile', { method: 'GET' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { email: string }).email).toBe(email);
    const setCookies = response.headers.getSetCookie();
    expect(setCookies.map((line) => line.split('=')[0]).sort()).toEqual([SDK_JWT, SDK_REFRESH]);
    for (const name of [SDK_JWT, SDK_REFRESH]) {
      const attributes = attributesOf(setCookies, name)!;
      // Readable by the SDK's script, host-only, on every path, Lax, and not Secure outside production.
      expect(attributes).not.toContain('httponly');
      expect(attributes.some((a) => a.startsWith('domain='))).toBe(false);
      expect(attributes).toEqual(expect.arrayContaining(['path=/', 'samesite=lax']));
      expect(attributes).not.toContain('secure');
      expect(attributes.some((a) => a.startsWith('expires='))).toBe(true);
    }
    expect(browser.cookie(SDK_JWT)).not.toBe(issued.jwt);
    expect(browser.cookie(SDK_REFRESH)).not.toBe(issued.refresh.secret);
    // The rotated values are the provider's own, unencoded, as the SDK reads them back.
    expect(browser.cookie(SDK_JWT)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const jwtExpiry = attributesOf(setCookies, SDK_JWT)!.find((a) => a.startsWith('expires='))!;
    const { exp } = JSON.parse(
      Buffer.from(browser.cookie(SDK_JWT)!.split('.')[1]!, 'base64url').toString(),
    ) as {
      exp: number;
    };
    expect(new Date(jwtExpiry.slice('expires='.length)).getTime()).toBe(exp * 1000);
    expect(browser.cookie('provider-jwt')).toBeUndefined();

    // The old pair is spent: only the rotated one goes on working.
    expect((await browser.call('GET', '/api/auth/profile')).status).toBe(200);
  });

  it('marks the rotated SDK pair Secure in production, still readable by its script', async () => {
    const production = await stack.startGateway({
      NODE_ENV: 'production',
      NATS_USER: 'gateway',
      NATS_PASSWORD: 'any-the-test-nats-is-open',
      PRODUCT_SERVICE: 'mock',
      CHAT_MODEL: 'offline',
      // The key the stack's other processes derived outside production, so they read one another.
      DATA_ENCRYPTION_KEY: testDataEncryptionKey(stack.env).toString('hex'),
    });
    const client = new TestClient(production);
    const issued = await stack.provider.issueToken(uniqueEmail(), { ttlSeconds: 1 });
    sdkSignIn(client, issued);
    await sleep(1100);
    const answer = await client.request('GET', '/api/onboarding/status');
    expect(answer.status).toBe(200);
    for (const name of [SDK_JWT, SDK_REFRESH]) {
      const attributes = attributesOf(answer.setCookies, name)!;
      expect(attributes).toContain('secure');
      expect(attributes).not.toContain('httponly');
    }
  });

  it('answers ten parallel requests after expiry with 200, the provider asked to refresh once', async () => {
    const email = uniqueEmail();
    const issued = await stack.provider.issueToken(email, { ttlSeconds: 2 });
    const first = new FrontendBrowser(stack.url);
    sdkSignIn(first, issued);
    expect((await first.call('GET', '/api/onboarding/status')).status).toBe(200);
    await sleep(2100);
    const refreshesBefore = stack.provider.requests('auth.refresh').length;

    const pages = Array.from({ length: 10 }, () => {
      const page = new FrontendBrowser(stack.url);
      sdkSignIn(page, issued);
      return page;
    });
    const answers = await Promise.all(pages.map((page) => page.call('GET', '/api/auth/profile')));

    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(answers.map((answer) => answer.json.email)).toEqual(Array.from({ length: 10 }, () => email));
    expect(stack.provider.requests('auth.refresh').length - refreshesBefore).toBe(1);
    expect(new Set(pages.map((page) => page.cookie(SDK_REFRESH))).size).toBe(1);
    expect(new Set(pages.map((page) => page.cookie(SDK_JWT))).size).toBe(1);
  });

  it('answers 401 to an SDK JWT that is forged, signed by a foreign key, unsigned or an HMAC', async () => {
    const { exportJWK, generateKeyPair, SignJWT } = await import('jose');
    const real = await stack.provider.issueToken(uniqueEmail());
    const [, payload] = real.jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const foreign = await generateKeyPair('RS256');
    const foreignKid = (await exportJWK(foreign.publicKey)).n!.slice(0, 16);
    const signedBy = (key: CryptoKey, overrides: Record<string, unknown> = {}, kid = foreignKid) =>
      new SignJWT({ ...claims, ...overrides }).setProtectedHeader({ alg: 'RS256', kid }).sign(key);
    const header = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

    const forgeries: Record<string, string> = {
      'a payload swapped under the real signature': [
        real.jwt.split('.')[0],
        header({ ...claims, sub: randomUUID() }),
        real.jwt.split('.')[2],
      ].join('.'),
      'a foreign key': await signedBy(foreign.privateKey),
      "a foreign key under the provider's key id": await signedBy(
        foreign.privateKey,
        {},
        JSON.parse(Buffer.from(real.jwt.split('.')[0]!, 'base64url').toString()).kid,
      ),
      'no signature (alg none)': `${header({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'an HMAC over the public key set': `${header({ alg: 'HS256', typ: 'JWT' })}.${payload}.c2lnbmF0dXJl`,
    };
    for (const [forgery, jwt] of Object.entries(forgeries)) {
      const browser = new FrontendBrowser(stack.url);
      browser.setCookie(SDK_JWT, jwt);
      browser.setCookie(SDK_REFRESH, 'not-a-refresh-token');
      const answer = await browser.call('GET', '/api/onboarding/status');
      expect([forgery, answer.status, answer.json.code]).toEqual([forgery, 401, 'UNAUTHORIZED']);
    }
  });
});

describe('refreshes of requests without a valid session, per client address', () => {
  const refreshLimit = 3;
  let limited: string;
  beforeAll(async () => {
    // Behind a proxy at 127.0.0.1 (the test), which states each client's address.
    limited = await stack.startGateway({
      SESSION_REFRESH_RATE_LIMIT_RPM: String(refreshLimit),
      TRUST_PROXY: '127.0.0.1',
    });
  });
  const address = () => `10.${[1, 2, 3].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;
  const fromAddress = async (ip: string, cookies: Record<string, string>, path = '/api/auth/profile') => {
    const client = new TestClient(limited);
    for (const [name, value] of Object.entries(cookies)) client.setCookie(name, value);
    return client.request('GET', path, undefined, { 'x-forwarded-for': ip });
  };

  it('sends at most the limit of random refresh cookies from one address to the provider, then answers 429 in the envelope', async () => {
    const attacker = address();
    const before = stack.provider.requests('auth.refresh').length;
    const answers = [];
    for (let i = 0; i < refreshLimit + 3; i++) {
      const family = i % 2 === 0 ? SDK_REFRESH : 'provider-refresh-token';
      const path = i % 3 === 0 ? '/api/cart' : '/api/auth/profile';
      answers.push(await fromAddress(attacker, { [family]: randomBytes(32).toString('base64url') }, path));
    }
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429, 429, 429]);
    expect(stack.provider.requests('auth.refresh').length - before).toBe(refreshLimit);
    const refused = answers[refreshLimit]!;
    expect(refused.json).toEqual({ error: expect.any(String), code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe(String(refreshLimit));

    // Another address has its own budget; a valid session from the limited one costs nothing.
    expect((await fromAddress(address(), { [SDK_REFRESH]: 'random' })).status).toBe(401);
    expect(stack.provider.requests('auth.refresh').length - before).toBe(refreshLimit + 1);
    const valid = await stack.provider.issueToken(uniqueEmail());
    const signedIn = await fromAddress(attacker, {
      [SDK_JWT]: valid.jwt,
      [SDK_REFRESH]: valid.refresh.secret,
    });
    expect(signedIn.status).toBe(200);
  });

  it('counts the one exchange that ten parallel requests of an expired session share, not ten', async () => {
    const page = address();
    const issued = await stack.provider.issueToken(uniqueEmail(), { ttlSeconds: 2 });
    expect((await fromAddress(page, { [SDK_JWT]: issued.jwt })).status).toBe(200);
    await sleep(2100);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fromAddress(page, { [SDK_JWT]: issued.jwt, [SDK_REFRESH]: issued.refresh.secret }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    // Two of the three left: two random cookies reach the provider, the third is refused.
    const after = [];
    for (let i = 0; i < 3; i++)
      after.push((await fromAddress(page, { [SDK_REFRESH]: `random-${i}` })).status);
    expect(after).toEqual([401, 401, 429]);
  });
});

describe('the identity invariant over cookie combinations', () => {
  /**
   * What a request may carry in either pair: nothing, a valid or expired JWT of X or Y, one
   * whose payload names Y under X's signature, or one of X signed by a foreign key; a refresh
   * token of X or Y, or a random one.
   */
  const jwtKinds = ['absent', 'valid-x', 'valid-y', 'expired-x', 'expired-y', 'swapped', 'foreign'] as const;
  const refreshKinds = ['absent', 'of-x', 'of-y', 'random'] as const;
  type JwtKind = (typeof jwtKinds)[number];
  type RefreshKind = (typeof refreshKinds)[number];
  interface Pair {
    jwt: JwtKind;
    refresh: RefreshKind;
  }
  const users = { x: uniqueEmail(), y: uniqueEmail() };
  const expired: Record<'x' | 'y', string> = { x: '', y: '' };
  let foreign = '';

  beforeAll(async () => {
    for (const who of ['x', 'y'] as const) {
      const browser = new FrontendBrowser(stack.url);
      sdkSignIn(browser, await stack.provider.issueToken(users[who]));
      expect((await browser.call('GET', '/api/auth/profile')).status).toBe(200);
      expect(browser.cookie(SDK_JWT)).toBeDefined();
      expired[who] = (await stack.provider.issueToken(users[who], { ttlSeconds: 1 })).jwt;
    }
    const { generateKeyPair, SignJWT } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256');
    const [, payload] = expired.x.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    foreign = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'RS256' })
      .sign(privateKey);
    await sleep(1100);
  });

  /** Who the gateway may take a pair for: only a valid signature of theirs, or their refresh token. */
  function oracle(pair: Pair): 'x' | 'y' | 'none' | 'refused' {
    if (pair.jwt === 'absent' && pair.refresh === 'absent') return 'none';
    if (pair.jwt === 'valid-x') return 'x';
    if (pair.jwt === 'valid-y') return 'y';
    if (pair.jwt === 'swapped' || pair.jwt === 'foreign') return 'refused';
    // Expired or absent: only a refresh token the provider honours opens a session, its owner's.
    if (pair.refresh === 'of-x') return 'x';
    if (pair.refresh === 'of-y') return 'y';
    return 'refused';
  }

  const pair = fc.record({ jwt: fc.constantFrom(...jwtKinds), refresh: fc.constantFrom(...refreshKinds) });

  it('authenticates a request as X only when every session it carries is a valid one of X', async () => {
    await fc.assert(
      fc.asyncProperty(pair, pair, async (exchanged, sdk) => {
        const issued = {
          x: await stack.provider.issueToken(users.x),
          y: await stack.provider.issueToken(users.y),
        };
        const jwtOf = (kind: JwtKind): string | undefined => {
          switch (kind) {
            case 'absent':
              return undefined;
            case 'valid-x':
              return issued.x.jwt;
            case 'valid-y':
              return issued.y.jwt;
            case 'expired-x':
              return expired.x;
            case 'expired-y':
              return expired.y;
            case 'swapped': {
              const [head, , signature] = issued.x.jwt.split('.');
              const [, body] = issued.y.jwt.split('.');
              return `${head}.${body}.${signature}`;
            }
            case 'foreign':
              return foreign;
          }
        };
        const refreshOf = (kind: RefreshKind): string | undefined =>
          kind === 'absent'
            ? undefined
            : kind === 'of-x'
              ? issued.x.refresh.secret
              : kind === 'of-y'
                ? issued.y.refresh.secret
                : randomBytes(32).toString('base64url');
        const client = new TestClient(stack.url);
        const cookies: [string, string | undefined][] = [
          ['provider-jwt', jwtOf(exchanged.jwt)],
          ['provider-refresh-token', refreshOf(exchanged.refresh)],
          [SDK_JWT, jwtOf(sdk.jwt)],
          [SDK_REFRESH, refreshOf(sdk.refresh)],
        ];
        for (const [name, value] of cookies) if (value !== undefined) client.setCookie(name, value);

        const answer = await client.request('GET', '/api/auth/profile');

        const claims = [oracle(exchanged), oracle(sdk)].filter((who) => who !== 'none');
        const expected =
          claims.length > 0 && claims.every((who) => who === claims[0]) && claims[0] !== 'refused'
            ? (claims[0] as 'x' | 'y')
            : null;
        if (expected === null) {
          expect([answer.status, answer.json.code]).toEqual([401, 'UNAUTHORIZED']);
        } else {
          expect([answer.status, answer.json.email]).toEqual([200, users[expected]]);
        }
      }),
      { numRuns: 80 },
    );
  });
});
