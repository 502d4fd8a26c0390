import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { Webhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderSandbox } from '@shop/sandbox-provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import {
  Client,
  depositSecret,
  devJwtSecret,
  figures,
  isEnvelope,
  product,
  readStream,
  send,
  Shopper,
  Stack,
  webhookSecret,
  writeFigures,
} from './harness';

/**
 * Attacks on the gateway: forged, expired, `alg: none`, wrong-key, wrong-issuer and
 * algorithm-confused JWTs on every session and gated route; every id-taking route with another
 * user's id; CORS from other origins; cookie attributes; webhook signature and timestamp
 * tampering and replays; the deposit confirmation secret missing or guessed; SQL-looking input
 * in every string field. Each attack is refused in the envelope and leaves no event behind.
 */
/**
 * A production gateway needs a NATS credential (the test NATS is open and takes any) and runs
 * the mock catalogue and the offline model only when they are named.
 */
const production = {
  NODE_ENV: 'production',
  NATS_USER: 'gateway',
  NATS_PASSWORD: 'any-the-test-nats-is-open',
  PRODUCT_SERVICE: 'mock',
  CHAT_MODEL: 'offline',
};
let sui: SuiSandbox;
let stack: Stack;
let victim: Shopper & { sessionId: string; itemId: string; orderId: string; keyUsed: string };
let attacker: Shopper;
let expiredProviderJwt: string;
let expiredIssuedAt: number;
let document: { paths: Record<string, Record<string, { security?: unknown[] }>> };

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await Stack.start('attacks', {
    vars: {
      CHAIN_RPC_URL: sui.url,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: `${sui.paymentPackageId}::usdc::USDC`,
    },
  });
  // The victim signs in with a provider token, so forged tokens can claim its real subject.
  const email = `victim-${randomUUID().slice(0, 8)}@example.com`;
  const session = await stack.provider.issueToken(email);
  const client = new Client(stack.url);
  expect((await client.request('POST', '/api/auth/session', { jwt: session.jwt, email })).status).toBe(200);
  await client.request('POST', '/api/onboarding/step-1', { displayName: 'Victim' });
  await client.request('POST', '/api/onboarding/step-2', {
    firstName: 'Vic',
    lastName: 'Tim',
    street: '1 Main Street',
    country: 'US',
    city: 'Austin',
    state: 'TX',
    zip: '78701',
  });
  await client.request('POST', '/api/onboarding/step-3', {
    topsSize: 'M',
    bottomsSize: '32',
    footwearSize: '42',
  });
  let profile = await client.request('GET', '/api/auth/profile');
  for (let i = 0; i < 100 && profile.json.walletStatus !== 'active'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    profile = await client.request('GET', '/api/auth/profile');
  }
  stack.provider.fund(profile.json.evmAddress as string, '500');
  const keyUsed = randomUUID();
  const sessionId = (await client.request('POST', '/api/sessions', { title: 'Private plans' })).json
    .id as string;
  const ordered = (await client.request('POST', '/api/cart', product('victim-ordered'))).json.id as string;
  const order = await client.request('POST', '/api/checkout', { cartItemId: ordered });
  const itemId = (
    await client.request('POST', '/api/cart', product('victim-kept'), { 'idempotency-key': keyUsed })
  ).json.id as string;
  victim = {
    client,
    userId: profile.json.userId as string,
    email,
    evm: profile.json.evmAddress as string,
    sui: profile.json.walletAddress as string,
    sessionId,
    itemId,
    orderId: order.json.orderId as string,
    keyUsed,
  };
  attacker = await stack.shopper({ funds: '500' });
  expiredProviderJwt = (await stack.provider.issueToken(email, { ttlSeconds: 1 })).jwt;
  expiredIssuedAt = Date.now();
  document = (await (await send(`${stack.url}/doc`)).json()) as typeof document;
}, 90_000);
afterAll(async () => {
  writeFigures('attacks');
  await stack?.stop();
  await sui?.close();
});

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The stream's last sequence, to show that a series of refused attacks appended nothing. */
async function lastSequence(): Promise<number> {
  return (await stack.store()).lastStreamSequence();
}

/** The same, once the reactions of earlier steps have settled: the baseline of a no-change check. */
const settledSequence = () => stack.quietSequence(400);

async function victimIntact(): Promise<void> {
  const session = await victim.client.request('GET', `/api/sessions/${victim.sessionId}`);
  expect([session.status, session.json.title]).toEqual([200, 'Private plans']);
  const cart = await victim.client.request('GET', '/api/cart');
  expect((cart.json.items as { id: string }[]).map((i) => i.id)).toContain(victim.itemId);
  expect((await victim.client.request('GET', `/api/orders/${victim.orderId}`)).json.status).toBe(
    'awaiting_approval',
  );
}

describe('JWT attacks on every session and gated route', () => {
  async function forgedTokens(): Promise<[string, string][]> {
    const now = Math.floor(Date.now() / 1000);
    const genuine = (await stack.provider.issueToken(victim.email)).jwt;
    const claims = JSON.parse(Buffer.from(genuine.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const jwks = (await (await send(stack.provider.jwksUrl)).json()) as { keys: Record<string, string>[] };
    const providerKey = jwks.keys[0]!;
    const attackerKeys = await generateKeyPair('RS256');
    const other = await startProviderSandbox({
      port: 0,
      jwt: { issuer: stack.provider.issuer, audience: stack.provider.audience },
    });
    const otherProviderJwt = (await other.issueToken(victim.email)).jwt;
    await other.close();
    const dev = new TextEncoder().encode(devJwtSecret);
    const devClaims = { email: victim.email };
    const signDev = (issuer: string, audience: string, exp: number, key = dev, nbf = now - 10) =>
      new SignJWT(devClaims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(`dev|${victim.email}`)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(now - 20)
        .setNotBefore(nbf)
        .setExpirationTime(exp)
        .sign(key);
    while (Date.now() - expiredIssuedAt < 2100) await new Promise((r) => setTimeout(r, 100));
    return [
      ['alg none', `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`],
      ['alg None', `${b64url({ alg: 'None', typ: 'JWT' })}.${b64url(claims)}.`],
      [
        'provider claims, attacker RSA key, provider kid',
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: providerKey.kid, typ: 'JWT' })
          .sign(attackerKeys.privateKey),
      ],
      [
        'alg confusion: HS256 keyed with the provider public key',
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: providerKey.kid, typ: 'JWT' })
          .sign(new TextEncoder().encode(JSON.stringify(providerKey))),
      ],
      ['another provider with the same issuer', otherProviderJwt],
      ['expired provider token', expiredProviderJwt],
      [
        'genuine token, payload changed (longer life), signature kept',
        (() => {
          const [header, , signature] = genuine.split('.');
          return `${header}.${b64url({ ...claims, exp: now + 10 * 365 * 86_400 })}.${signature}`;
        })(),
      ],
      [
        'dev token, wrong key',
        await signDev(
          'shop-dev-login',
          'shop-dev-login',
          now + 3600,
          new TextEncoder().encode('x'.repeat(48)),
        ),
      ],
      ['dev token, expired', await signDev('shop-dev-login', 'shop-dev-login', now - 60)],
      [
        'dev token, not yet valid',
        await signDev('shop-dev-login', 'shop-dev-login', now + 3600, dev, now + 600),
      ],
      ['dev token, wrong issuer', await signDev('someone-else', 'shop-dev-login', now + 3600)],
      ['dev token, wrong audience', await signDev('shop-dev-login', 'another-app', now + 3600)],
      ['empty', ''],
      ['garbage', 'not.a.jwt'],
      ['huge', `${'a'.repeat(6000)}.${'b'.repeat(6000)}.c`],
    ];
  }

  function requestFor(method: string, path: string): { path: string; body: unknown } {
    const filled = path
      .replace('{id}', victim.sessionId)
      .replace('{itemId}', victim.itemId)
      .replace('{orderId}', victim.orderId);
    const bodies: Record<string, unknown> = {
      'POST /api/cart': product('forged'),
      'POST /api/checkout': { cartItemId: victim.itemId },
      'POST /api/chat': {
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'buy socks' }] }],
      },
      'POST /api/sessions': { title: 'forged' },
      'PATCH /api/sessions/{id}': { title: 'forged' },
      'POST /api/onboarding/step-1': { displayName: 'Mallory' },
      'POST /api/onboarding/step-2': {
        firstName: 'M',
        lastName: 'M',
        street: '2 Evil Road',
        country: 'US',
        city: 'Austin',
        zip: '78701',
      },
      'POST /api/onboarding/step-3': { topsSize: 'S', bottomsSize: '30', footwearSize: '40' },
      'POST /api/deposit/verify': { txDigest: '1'.repeat(44), nonce: 'n', amount: '1', coinType: 'x' },
    };
    return {
      path: filled,
      body: bodies[`${method} ${path}`] ?? (method === 'GET' || method === 'DELETE' ? undefined : {}),
    };
  }

  it('refuses every forged token on every protected route with 401 in the envelope, changing nothing', async () => {
    const protectedRoutes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
        .map(([method]) => [method.toUpperCase(), path] as const),
    );
    expect(protectedRoutes.length).toBeGreaterThanOrEqual(18);
    const tokens = await forgedTokens();
    const before = await settledSequence();
    const accepted: string[] = [];
    for (const [name, token] of tokens) {
      // The session exchange refuses it and sets no cookie.
      const exchange = await send(`${stack.url}/api/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jwt: token || 'x', email: victim.email }),
      });
      figures.attacksTried++;
      // 401, or 400 for a token the body schema already refuses (empty, over 8 KB).
      const exchangeJson = (await exchange.clone().json()) as { code?: string };
      if (exchange.status !== 401 && !(exchange.status === 400 && exchangeJson.code === 'VALIDATION_ERROR'))
        accepted.push(`session ${name}: ${exchange.status}`);
      if (exchange.headers.getSetCookie().length > 0) accepted.push(`session ${name}: set a cookie`);
      await exchange.arrayBuffer();
      for (const [method, path] of protectedRoutes) {
        const { path: url, body } = requestFor(method, path);
        const res = await send(`${stack.url}${url}`, {
          method,
          headers: {
            cookie: `provider-jwt=${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        figures.attacksTried++;
        const json = await res.json().catch(() => null);
        // The agents' consent page is a browser's: its 401 is a page that says to sign in first.
        const envelopeExpected = path.startsWith('/api/');
        if (
          res.status !== 401 ||
          (envelopeExpected && (!isEnvelope(json) || (json as { code: string }).code !== 'UNAUTHORIZED'))
        )
          accepted.push(`${name}: ${method} ${path} -> ${res.status} ${JSON.stringify(json)}`);
      }
    }
    figures.invariantsBroken += accepted.length;
    expect(accepted).toEqual([]);
    expect(await lastSequence()).toBe(before);
    await victimIntact();
  }, 90_000);
});

describe("another user's ids", () => {
  it('refuses sessions with 403, cart items and orders with 404, and changes nothing of the owner', async () => {
    const a = attacker.client;
    const before = await settledSequence();
    const chat = {
      sessionId: victim.sessionId,
      messages: [{ id: 'x', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    };
    const attempts: [string, string, unknown, number, string][] = [
      ['GET', `/api/sessions/${victim.sessionId}`, undefined, 403, 'SessionOwnershipError'],
      ['PATCH', `/api/sessions/${victim.sessionId}`, { title: 'pwned' }, 403, 'SessionOwnershipError'],
      ['DELETE', `/api/sessions/${victim.sessionId}`, undefined, 403, 'SessionOwnershipError'],
      ['POST', '/api/chat', chat, 403, 'SessionOwnershipError'],
      ['DELETE', `/api/cart/${victim.itemId}`, undefined, 404, 'CartItemNotFoundError'],
      ['POST', '/api/checkout', { cartItemId: victim.itemId }, 404, 'CartItemNotFoundError'],
      ['GET', `/api/orders/${victim.orderId}`, undefined, 404, 'OrderNotFoundError'],
    ];
    for (const [method, path, body, status, code] of attempts) {
      const res = await a.request(method, path, body);
      figures.attacksTried++;
      expect([method, path, res.status, res.json?.code]).toEqual([method, path, status, code]);
    }
    expect(await lastSequence()).toBe(before);
    // Lists show only the caller's own records, and an Idempotency-Key is the caller's own.
    const orders = await a.request('GET', '/api/orders?limit=100');
    expect((orders.json.orders as { orderId: string }[]).map((o) => o.orderId)).not.toContain(victim.orderId);
    const sessions = await a.request('GET', '/api/sessions?limit=100');
    expect((sessions.json.sessions as { id: string }[]).map((s) => s.id)).not.toContain(victim.sessionId);
    const own = await a.request('POST', '/api/cart', product('victim-kept'), {
      'idempotency-key': victim.keyUsed,
    });
    expect(own.status).toBe(201);
    expect(own.json.id).not.toBe(victim.itemId);
    expect(own.json.userId).toBe(attacker.userId);
    figures.attacksTried += 3;
    await victimIntact();
  });
});

describe('CORS', () => {
  const allowed = [
    'http://localhost:8080',
    'http://localhost:3000',
    'http://localhost:3001',
    'http://localhost:5173',
    'null',
  ];
  const foreign = [
    'https://evil.example.com',
    'http://localhost:3000.evil.com',
    'http://localhost:8081',
    'https://localhost:3000',
    'http://127.0.0.1:3000',
    'http://LOCALHOST:3000',
    'nul',
    '*',
    'http://localhost:3000, https://evil.example.com',
  ];

  it('echoes exactly an allowed origin with credentials, never a wildcard, and nothing for others', async () => {
    const cookie = `provider-jwt=${victim.client.cookie('provider-jwt')}`;
    for (const origin of [...allowed, ...foreign]) {
      const preflight = await send(`${stack.url}/api/cart`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      const simple = await send(`${stack.url}/api/cart`, { headers: { origin, cookie } });
      figures.attacksTried += 2;
      for (const res of [preflight, simple]) {
        const acao = res.headers.get('access-control-allow-origin');
        expect(acao).not.toBe('*');
        if (allowed.includes(origin)) {
          expect(acao, origin).toBe(origin);
          expect(res.headers.get('access-control-allow-credentials')).toBe('true');
        } else {
          expect(acao, origin).toBeNull();
          expect(res.headers.get('access-control-allow-credentials'), origin).toBeNull();
        }
        await res.arrayBuffer();
      }
    }
  });
});

describe('cookies', () => {
  it('sets HttpOnly, SameSite=Lax, host-only session cookies, and clears them on logout', async () => {
    const email = `cookie-${randomUUID().slice(0, 8)}@example.com`;
    const session = await stack.provider.issueToken(email);
    const res = await send(`${stack.url}/api/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jwt: session.jwt, refreshToken: session.refresh.secret, email }),
    });
    // The consistency token joins them only when registration was answered before it was readable.
    const cookies = res.headers.getSetCookie().filter((c) => !c.startsWith('consistency-token='));
    expect(cookies.map((c) => c.split('=')[0]).sort()).toEqual([
      'provider-jwt',
      'provider-refresh-token',
      'user-email',
    ]);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/; HttpOnly/i);
      expect(cookie).toMatch(/; SameSite=Lax/i);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/; Domain=/i);
      expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeGreaterThan(0);
    }
    const logout = await send(`${stack.url}/api/auth/logout`, { method: 'POST' });
    const cleared = logout.headers.getSetCookie();
    // Both session families: the spec's and the provider browser SDK's.
    expect(cleared.map((c) => c.split('=')[0]).sort()).toEqual([
      'crossmint-jwt',
      'crossmint-refresh-token',
      'provider-jwt',
      'provider-refresh-token',
      'user-email',
    ]);
    for (const cookie of cleared) expect(cookie).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
    figures.attacksTried += 2;
  });

  it('marks them Secure in production, where dev login and the test page do not exist', async () => {
    const productionUrl = await stack.startGateway(production);
    const email = `prod-${randomUUID().slice(0, 8)}@example.com`;
    const session = await stack.provider.issueToken(email);
    const res = await send(`${productionUrl}/api/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jwt: session.jwt, email }),
    });
    expect(res.status).toBe(200);
    for (const cookie of res.headers.getSetCookie()) expect(cookie).toMatch(/; Secure/i);
    const devLogin = await send(`${productionUrl}/api/dev/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect([devLogin.status, ((await devLogin.json()) as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
    expect((await send(`${productionUrl}/test`)).status).toBe(404);
    // A dev token, valid outside production, is refused by a production gateway.
    const dev = new Client(stack.url);
    await dev.request('POST', '/api/dev/login', { email: `dev-${randomUUID().slice(0, 8)}@example.com` });
    const refused = await send(`${productionUrl}/api/auth/profile`, {
      headers: { cookie: `provider-jwt=${dev.cookie('provider-jwt')}` },
    });
    expect(refused.status).toBe(401);
    figures.attacksTried += 4;
  });
});

describe('identity binding', () => {
  it("binds a session to its token's own email, never to the victim's email sent in the body", async () => {
    const victimEvents = async () => (await (await stack.store()).load('user', victim.userId)).version;
    const victimVersion = await victimEvents();
    for (const claimed of [victim.email, victim.email.toUpperCase()]) {
      const email = `mallory-${randomUUID().slice(0, 8)}@example.com`;
      const mallory = new Client(stack.url);
      const session = await stack.provider.issueToken(email);
      const res = await mallory.request('POST', '/api/auth/session', { jwt: session.jwt, email: claimed });
      expect(res.status).toBe(200);
      let profile = await mallory.request('GET', '/api/auth/profile');
      for (let i = 0; i < 200 && profile.json.walletStatus !== 'active'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        profile = await mallory.request('GET', '/api/auth/profile');
      }
      expect(profile.json).toMatchObject({ email, walletStatus: 'active' });
      expect(profile.json.evmAddress).not.toBe(victim.evm);
      expect(res.setCookies.map((c) => c.split('=')[0]).filter((n) => n !== 'consistency-token')).toEqual([
        'provider-jwt',
      ]);
      figures.attacksTried++;
    }
    expect(await victimEvents()).toBe(victimVersion);
    await victimIntact();
  });
});

describe('provider token issuer and audience', () => {
  it('stops a production gateway that names no issuer or audience, and refuses tokens of another application, exchanged or in the SDK cookie', async () => {
    await expect(
      stack.startGateway({ ...production, PROVIDER_JWT_ISSUER: '', PROVIDER_JWT_AUDIENCE: '' }),
    ).rejects.toThrow(/PROVIDER_JWT_ISSUER: required in production[\s\S]*PROVIDER_JWT_AUDIENCE: required/);
    // Same key set, same provider: the stand-in's tokens are another application's to these gateways.
    const email = `other-app-${randomUUID().slice(0, 8)}@example.com`;
    const jwt = (await stack.provider.issueToken(email)).jwt;
    // The control: the gateway whose issuer and audience the token names takes it from the SDK cookie.
    const taken = await send(`${stack.url}/api/onboarding/status`, {
      headers: { cookie: `crossmint-jwt=${jwt}` },
    });
    expect(taken.status).toBe(200);
    const others: Record<string, string>[] = [
      { PROVIDER_JWT_AUDIENCE: 'this-shop' },
      { PROVIDER_JWT_ISSUER: 'https://other.test' },
    ];
    for (const vars of others) {
      const gateway = await stack.startGateway({ ...production, ...vars });
      const res = await send(`${gateway}/api/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jwt, email }),
      });
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([401, 'UNAUTHORIZED']);
      expect(res.headers.getSetCookie()).toEqual([]);
      // The same token as the provider's browser SDK keeps it, in its own cookie: refused alike.
      const asSdk = await send(`${gateway}/api/onboarding/status`, {
        headers: { cookie: `crossmint-jwt=${jwt}` },
      });
      expect([asSdk.status, ((await asSdk.json()) as { code: string }).code]).toEqual([401, 'UNAUTHORIZED']);
      figures.attacksTried += 2;
    }
  });
});

describe('webhook signatures', () => {
  const signer = new Webhook(webhookSecret);
  const post = (body: string, headers: Record<string, string>) =>
    send(`${stack.url}/api/webhooks/provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const signed = (id: string, body: string, at = new Date(), secret = signer) => ({
    'svix-id': id,
    'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
    'svix-signature': secret.sign(id, at, body),
  });

  it('refuses tampered bodies, signatures and timestamps and replays outside tolerance, recording nothing', async () => {
    const item = (await attacker.client.request('POST', '/api/cart', product('hooked'))).json.id as string;
    const placed = await attacker.client.request('POST', '/api/checkout', { cartItemId: item });
    const providerOrderId = placed.json.providerOrderId as string;
    const body = JSON.stringify({
      type: 'orders.delivery.completed',
      data: {
        orderId: providerOrderId,
        phase: 'completed',
        payment: { status: 'completed', currency: 'usdc' },
      },
    });
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const good = signed(id, body);
    const otherSecret = new Webhook(`whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`);
    const now = Date.now();
    const cases: [string, string, Record<string, string>][] = [
      ['body changed after signing', body.replace('completed', 'failed'), good],
      ['body with a trailing space', `${body} `, good],
      ['signature from another secret', body, signed(id, body, new Date(), otherSecret)],
      ['signature of another id', body, { ...signed(`${id}x`, body), 'svix-id': id }],
      [
        'timestamp moved, signature kept',
        body,
        { ...good, 'svix-timestamp': String(Math.floor(now / 1000) + 30) },
      ],
      ['signed 10 minutes ago (replay)', body, signed(id, body, new Date(now - 10 * 60_000))],
      ['signed 10 minutes ahead', body, signed(id, body, new Date(now + 10 * 60_000))],
      ['no signature', body, { 'svix-id': id, 'svix-timestamp': good['svix-timestamp'] }],
      ['no headers at all', body, {}],
      ['empty signature list', body, { ...good, 'svix-signature': '' }],
      [
        'signature of v2 scheme',
        body,
        { ...good, 'svix-signature': good['svix-signature'].replace('v1,', 'v2,') },
      ],
      ['garbage timestamp', body, { ...good, 'svix-timestamp': 'yesterday' }],
    ];
    const before = await settledSequence();
    for (const [name, sentBody, headers] of cases) {
      const res = await post(sentBody, headers);
      const json = await res.json().catch(() => null);
      figures.attacksTried++;
      expect([name, res.status, (json as { code?: string } | null)?.code]).toEqual([
        name,
        401,
        'UNAUTHORIZED',
      ]);
    }
    expect(await lastSequence()).toBe(before);
    expect((await readStream(await stack.store())).filter((c) => c.subject.endsWith(id))).toEqual([]);

    // The genuine delivery is taken once; its replays within tolerance are acknowledged, not applied.
    const first = await post(body, good);
    expect([first.status, await first.json()]).toEqual([200, { received: true, duplicate: false }]);
    for (let i = 0; i < 3; i++) {
      const again = await post(body, signed(id, body));
      expect([again.status, await again.json()]).toEqual([200, { received: true, duplicate: true }]);
      figures.attacksTried++;
    }
    const store = await stack.store();
    expect((await store.load('provider-webhook', id)).events).toHaveLength(1);
  });
});

describe('deposit confirmation secret', () => {
  it('refuses a missing or guessed secret with 401 and credits nothing', async () => {
    const body = JSON.stringify({
      amount: '1000000',
      transactionHash: `Atk${randomUUID().replace(/-/g, '')}`,
      network: 'testnet',
      currency: 'x',
    });
    const guesses: (string | undefined)[] = [
      undefined,
      '',
      ' ',
      depositSecret.slice(0, -1),
      `${depositSecret}x`,
      depositSecret.toUpperCase(),
      `${depositSecret}\u0000`,
      webhookSecret,
      'null',
      depositSecret.slice(0, 1),
      Buffer.from(depositSecret).toString('base64'),
    ];
    const before = await settledSequence();
    for (const guess of guesses) {
      const res = await send(`${stack.url}/api/deposit/${victim.userId}/${victim.sui}/confirm`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(guess === undefined ? {} : { 'x-webhook-secret': guess }),
        },
        body,
      }).catch(
        (error: unknown) =>
          ({ status: 0, json: async () => ({ error: String(error) }) }) as unknown as Response,
      );
      figures.attacksTried++;
      if (res.status === 0) continue; // a header value fetch itself refuses to send
      expect([
        JSON.stringify(guess)?.slice(0, 20),
        res.status,
        ((await res.json()) as { code: string }).code,
      ]).toEqual([JSON.stringify(guess)?.slice(0, 20), 401, 'UNAUTHORIZED']);
    }
    // Two secret headers: joined by the HTTP layer, still not the secret.
    const doubled = await fetch(`${stack.url}/api/deposit/${victim.userId}/${victim.sui}/confirm`, {
      method: 'POST',
      headers: [
        ['content-type', 'application/json'],
        ['x-webhook-secret', depositSecret],
        ['x-webhook-secret', depositSecret],
      ],
      body,
    });
    expect(doubled.status).toBe(401);
    figures.attacksTried++;
    expect(await lastSequence()).toBe(before);
  });
});

describe('SQL-looking input in every string field', () => {
  const payloads = [
    "'; DROP TABLE cart_items; --",
    "' OR '1'='1",
    '1) OR 1=1 --',
    "x'); DELETE FROM users; --",
    '$$ || pg_sleep(5) || $$',
    '\\x27 UNION SELECT * FROM secrets.wallet_keys --',
  ];

  it('stores and returns such strings verbatim, never answers 5xx, and leaks no other user', async () => {
    const shopper = await stack.shopper({ wallet: false });
    const c = shopper.client;
    // Another user for the chat (whose assistant may well act on "DELETE ... cart") and the rest.
    const other = (await stack.shopper({ wallet: false })).client;
    for (const [i, sqlText] of payloads.entries()) {
      const fields = {
        productId: `id ${sqlText}`.slice(0, 255),
        productName: sqlText,
        retailer: sqlText,
        size: sqlText.slice(0, 50),
        color: `${i}${sqlText}`.slice(0, 50),
        image: `https://images.example.com/${encodeURIComponent(sqlText)}.jpg`,
        productUrl: `https://shop.example.com/?q=${encodeURIComponent(sqlText)}`,
        price: 100 + i,
      };
      const added = await c.request('POST', '/api/cart', fields);
      expect(added.status).toBe(201);
      expect(added.json).toMatchObject(fields);
      const session = await c.request('POST', '/api/sessions', { title: sqlText });
      expect([session.status, session.json.title]).toEqual([201, sqlText]);
      const renamed = await c.request('PATCH', `/api/sessions/${session.json.id}`, { title: `${sqlText} 2` });
      expect(renamed.json.title).toBe(`${sqlText} 2`);
      for (const body of [
        { displayName: sqlText },
        {
          firstName: sqlText.slice(0, 50),
          lastName: sqlText.slice(0, 50),
          street: sqlText,
          country: 'US',
          city: sqlText,
          state: sqlText,
          zip: sqlText.slice(0, 20),
          apt: sqlText.slice(0, 50),
        },
        { topsSize: 'M', bottomsSize: sqlText.slice(0, 10), footwearSize: sqlText.slice(0, 10) },
      ]) {
        const step = 'displayName' in body ? 1 : 'street' in body ? 2 : 3;
        const res = await c.request('POST', `/api/onboarding/step-${step}`, body);
        expect(res.status, JSON.stringify(res.json)).toBeLessThan(500);
      }
      for (const query of [
        `/api/orders?phase=${encodeURIComponent(sqlText)}`,
        `/api/orders?status=${encodeURIComponent(sqlText)}`,
        `/api/orders?type=${encodeURIComponent(sqlText)}`,
        `/api/sessions?limit=${encodeURIComponent(sqlText)}`,
        `/api/sessions/${encodeURIComponent(sqlText)}`,
        `/api/orders/${encodeURIComponent(sqlText)}`,
      ]) {
        const res = await c.request('GET', query);
        expect(res.status, query).toBeLessThan(500);
        if (res.status === 200 && Array.isArray(res.json.orders)) expect(res.json.orders).toEqual([]);
        if (res.status >= 400) expect(isEnvelope(res.json)).toBe(true);
      }
      for (const body of [
        { cartItemId: sqlText },
        { jwt: sqlText, email: 'a@b.co' },
        { messages: [{ id: sqlText.slice(0, 100), role: 'user', parts: [{ type: 'text', text: sqlText }] }] },
        { txDigest: sqlText, nonce: sqlText, amount: sqlText, coinType: sqlText },
      ]) {
        const path =
          'cartItemId' in body
            ? '/api/checkout'
            : 'jwt' in body
              ? '/api/auth/session'
              : 'messages' in body
                ? '/api/chat'
                : '/api/deposit/verify';
        const res = await other.request('POST', path, body);
        expect(res.status, path).toBeLessThan(500);
      }
      figures.attacksTried += 17;
    }
    // Nothing ran in the database (pg_sleep included), nothing was dropped: the values read back verbatim.
    const cart = await c.request('GET', '/api/cart');
    expect((cart.json.items as { productName: string }[]).map((i) => i.productName).sort()).toEqual(
      [...payloads].sort(),
    );
    await victimIntact();
  }, 90_000);
});
