import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDataEncryptionKey } from '@shop/testing';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('frontdoor');
});
afterAll(async () => stack?.stop());

/**
 * The session cookies a response set. The consistency token joins them only when the machine is
 * so busy that registration was answered before it was readable; it is not what these tests check.
 */
const sessionCookieNames = (setCookies: string[]) =>
  setCookies.map((c) => c.split('=')[0]!).filter((name) => name !== 'consistency-token');

const uniqueEmail = () => `${randomUUID().slice(0, 8)}@example.com`;
const address = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Main Street',
  country: 'US',
  city: 'Austin',
  zip: '78701',
};
const sizes = { topsSize: 'M', bottomsSize: '32', footwearSize: '42' };

async function userEvents(userId: string): Promise<string[]> {
  return (await stack.store.load('user', userId)).events.map((e) => e.type);
}

describe('POST /api/auth/session with provider tokens', () => {
  it('sets HttpOnly, SameSite=Lax cookies that live as long as the token, and registers the user', async () => {
    const email = uniqueEmail();
    const session = await stack.provider.issueToken(email);
    const client = new TestClient(stack.url);
    const res = await client.request('POST', '/api/auth/session', {
      jwt: session.jwt,
      refreshToken: session.refresh.secret,
      email,
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true });
    const byName = Object.fromEntries(
      res.setCookies
        .map((c): [string, string] => [c.split('=')[0]!, c])
        .filter(([name]) => name !== 'consistency-token'),
    );
    expect(Object.keys(byName).sort()).toEqual(['provider-jwt', 'provider-refresh-token', 'user-email']);
    for (const cookie of Object.values(byName)) {
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/);
      expect(Number(/Max-Age=(\d+)/.exec(cookie)![1])).toBeGreaterThan(0);
    }
    const profile = await client.request('GET', '/api/auth/profile');
    expect(profile.status).toBe(200);
    expect(profile.json.email).toBe(email);
  });

  it('sets the refresh cookie only when the provider accepts the refresh token, and user-email only when given', async () => {
    const session = await stack.provider.issueToken(uniqueEmail());
    const res = await new TestClient(stack.url).request('POST', '/api/auth/session', {
      jwt: session.jwt,
      refreshToken: 'not-a-real-refresh-token',
    });
    expect(res.status).toBe(200);
    expect(sessionCookieNames(res.setCookies)).toEqual(['provider-jwt']);
  });

  it("binds nothing to a body email that is not the token's: no profile email, no wallet, no user-email cookie", async () => {
    const victimEmail = uniqueEmail();
    const victim = new TestClient(stack.url);
    const victimSession = await stack.provider.issueToken(victimEmail);
    await victim.request('POST', '/api/auth/session', { jwt: victimSession.jwt, email: victimEmail });
    const victimProfile = await eventually(
      () => victim.request('GET', '/api/auth/profile'),
      (res) => res.json.walletStatus === 'active',
    );

    const attackerEmail = uniqueEmail();
    const attacker = new TestClient(stack.url);
    const attackerSession = await stack.provider.issueToken(attackerEmail);
    const res = await attacker.request('POST', '/api/auth/session', {
      jwt: attackerSession.jwt,
      email: victimEmail,
    });
    // Ignored rather than refused: the token is valid, so the session cookie is set as the spec says.
    expect(res.status).toBe(200);
    const attackerProfile = await eventually(
      () => attacker.request('GET', '/api/auth/profile'),
      (profile) => profile.json.walletStatus === 'active',
    );
    expect(attackerProfile.json.evmAddress).not.toBe(victimProfile.json.evmAddress);
    expect(attackerProfile.json.email).toBe(attackerEmail);
    const events = (await stack.store.load('user', attackerProfile.json.userId as string)).events;
    expect(JSON.stringify(events)).not.toContain(victimEmail);
    expect(sessionCookieNames(res.setCookies)).toEqual(['provider-jwt']);
  });

  it('sets user-email for a body email that agrees with the token, whatever its case', async () => {
    const email = uniqueEmail();
    const session = await stack.provider.issueToken(email);
    const client = new TestClient(stack.url);
    const res = await client.request('POST', '/api/auth/session', {
      jwt: session.jwt,
      email: email.toUpperCase(),
    });
    expect(res.status).toBe(200);
    expect(sessionCookieNames(res.setCookies).sort()).toEqual(['provider-jwt', 'user-email']);
    expect((await client.request('GET', '/api/auth/profile')).json.email).toBe(email);
  });

  it('refreshes an expired session with the refresh cookie, rotating both cookies', async () => {
    const email = uniqueEmail();
    const session = await stack.provider.issueToken(email, { ttlSeconds: 1 });
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/auth/session', { jwt: session.jwt });
    client.setCookie('provider-refresh-token', session.refresh.secret);
    const firstJwt = client.cookie('provider-jwt');
    await new Promise((r) => setTimeout(r, 2100));
    const profile = await client.request('GET', '/api/auth/profile');
    expect(profile.status).toBe(200);
    expect(profile.json.email).toBe(email);
    expect(client.cookie('provider-jwt')).not.toBe(firstJwt);
    expect(client.cookie('provider-refresh-token')).not.toBe(session.refresh.secret);
  });

  it('refreshes once for ten parallel requests after expiry across two gateways, all 200 with the same new cookies', async () => {
    const email = uniqueEmail();
    const session = await stack.provider.issueToken(email, { ttlSeconds: 1 });
    await new TestClient(stack.url).request('POST', '/api/auth/session', { jwt: session.jwt });
    const secondGateway = await stack.startGateway();
    await new Promise((r) => setTimeout(r, 2100));
    const refreshesBefore = stack.provider.requests('auth.refresh').length;

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const page = new TestClient(i % 2 === 0 ? stack.url : secondGateway);
        page.setCookie('provider-jwt', session.jwt);
        page.setCookie('provider-refresh-token', session.refresh.secret);
        return page.request('GET', '/api/auth/profile').then((res) => ({ res, page }));
      }),
    );

    expect(answers.map(({ res }) => res.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(stack.provider.requests('auth.refresh').length - refreshesBefore).toBe(1);
    const rotated = new Set(answers.map(({ page }) => page.cookie('provider-refresh-token')));
    expect(rotated.size).toBe(1);
    expect([...rotated][0]).not.toBe(session.refresh.secret);
    expect(new Set(answers.map(({ page }) => page.cookie('provider-jwt'))).size).toBe(1);
  });

  it('answers 401 and clears the cookies when the refresh fails', async () => {
    const session = await stack.provider.issueToken(uniqueEmail(), { ttlSeconds: 1 });
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/auth/session', { jwt: session.jwt });
    client.setCookie('provider-refresh-token', 'revoked');
    await new Promise((r) => setTimeout(r, 2100));
    const res = await client.request('GET', '/api/auth/profile');
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
    expect(client.cookie('provider-jwt')).toBeUndefined();
  });

  it('answers 404 USER_NOT_FOUND for a valid token whose user was never registered', async () => {
    const session = await stack.provider.issueToken(uniqueEmail());
    const client = new TestClient(stack.url);
    client.setCookie('provider-jwt', session.jwt);
    const res = await client.request('GET', '/api/auth/profile');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: expect.any(String), code: 'USER_NOT_FOUND' });
  });
});

describe('onboarding', () => {
  it('follows the state table: steps in order, 403 before reached, never decreasing', async () => {
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', { email: uniqueEmail() });
    expect((await client.request('GET', '/api/onboarding/status')).json).toEqual({
      step: 0,
      completed: false,
    });

    const early2 = await client.request('POST', '/api/onboarding/step-2', address);
    expect([early2.status, early2.json.code]).toEqual([403, 'STEP_NOT_REACHED']);
    const early3 = await client.request('POST', '/api/onboarding/step-3', sizes);
    expect([early3.status, early3.json.code]).toEqual([403, 'STEP_NOT_REACHED']);

    expect((await client.request('POST', '/api/onboarding/step-1', { displayName: 'Ada' })).json).toEqual({
      success: true,
      step: 1,
    });
    const still3 = await client.request('POST', '/api/onboarding/step-3', sizes);
    expect(still3.status).toBe(403);
    expect((await client.request('POST', '/api/onboarding/step-2', address)).json).toEqual({
      success: true,
      step: 2,
    });
    expect((await client.request('GET', '/api/onboarding/status')).json).toEqual({
      step: 2,
      completed: false,
    });
    expect((await client.request('POST', '/api/onboarding/step-3', sizes)).json).toEqual({
      success: true,
      step: 3,
    });
    expect((await client.request('GET', '/api/onboarding/status')).json).toEqual({
      step: 3,
      completed: true,
    });

    expect((await client.request('POST', '/api/onboarding/step-1', { displayName: 'Again' })).status).toBe(
      200,
    );
    expect((await client.request('GET', '/api/onboarding/status')).json).toEqual({
      step: 3,
      completed: true,
    });
    expect((await client.request('GET', '/api/auth/profile')).json.onboardingStep).toBe(3);
  });

  it('validates every field with a message that names it', async () => {
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', { email: uniqueEmail() });
    const cases: [string, unknown, RegExp][] = [
      ['/api/onboarding/step-1', {}, /displayName/],
      ['/api/onboarding/step-1', { displayName: 'x'.repeat(101) }, /displayName/],
      ['/api/onboarding/step-2', { ...address, country: 'BR' }, /country/],
      ['/api/onboarding/step-2', { ...address, street: 'abc' }, /street/],
      ['/api/onboarding/step-2', { ...address, zip: undefined }, /zip/],
      ['/api/onboarding/step-2', { ...address, apt: 'a'.repeat(51) }, /apt/],
      ['/api/onboarding/step-3', { ...sizes, topsSize: 'XXXL' }, /topsSize/],
      ['/api/onboarding/step-3', { topsSize: 'M', bottomsSize: '32' }, /footwearSize/],
    ];
    for (const [path, body, field] of cases) {
      const res = await client.request('POST', path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json.code).toBe('VALIDATION_ERROR');
      expect(res.json.error).toMatch(field);
    }
  });

  it('answers 401 without a session', async () => {
    const res = await new TestClient(stack.url).request('POST', '/api/onboarding/step-1', {
      displayName: 'x',
    });
    expect([res.status, res.json.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('stores the sizes in the memory store on the first completion of step 3', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(uniqueEmail());
    const { createDatabase } = await import('@shop/db');
    const database = createDatabase(stack.env.databaseUrl, { max: 1 });
    const rows = await eventually(
      () =>
        database.db
          .withSchema(stack.env.schema)
          .selectFrom('user_memories')
          .selectAll()
          .where('user_id', '=', userId)
          .execute(),
      (r) => r.length > 0,
    );
    expect(rows.map((r) => r.content)).toEqual(['Clothing sizes: tops M, bottoms 32, footwear 42.']);
  });
});

describe('wallet provisioning', () => {
  it('takes a new user from none through pending to active with a Sui and an EVM address', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(uniqueEmail());
    const profile = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
    );
    expect(profile.json).toMatchObject({ userId, walletStatus: 'active', onboardingStep: 3 });
    expect(profile.json.walletAddress).toMatch(/^0x[0-9a-f]{64}$/);
    expect(profile.json.evmAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('records a failure with its reason, and signing in again retries it', async () => {
    stack.provider.failNext('wallets.create', { times: 20, status: 503 });
    const email = uniqueEmail();
    const client = new TestClient(stack.url);
    const login = await client.request('POST', '/api/dev/login', { email });
    const failed = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'failed',
      20_000,
    );
    expect(failed.json.walletStatus).toBe('failed');
    stack.provider.clearFaults();
    await client.request('POST', '/api/dev/login', { email });
    const active = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
    );
    expect(active.json.walletStatus).toBe('active');
    expect(await userEvents(login.json.userId as string)).toEqual([
      'UserRegistered',
      'WalletProvisioningStarted',
      'WalletProvisioningFailed',
      'WalletProvisioningStarted',
      'WalletProvisioned',
    ]);
  }, 40_000);

  it('provisions once under concurrent first sessions with the same provider token', async () => {
    const email = uniqueEmail();
    const session = await stack.provider.issueToken(email);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        new TestClient(stack.url).request('POST', '/api/auth/session', { jwt: session.jwt }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const client = new TestClient(stack.url);
    client.setCookie('provider-jwt', session.jwt);
    const profile = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
    );
    const events = await userEvents(profile.json.userId as string);
    expect(events).toEqual(['UserRegistered', 'WalletProvisioningStarted', 'WalletProvisioned']);
  });
});

describe('rate limiting per user', () => {
  it('lets request 30 through and refuses 31 with 429, sharing the budget across two gateway instances', async () => {
    // Stay inside one fixed minute window so the boundary is exact.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 100));
    const second = await stack.startGateway();
    const email = uniqueEmail();
    const a = new TestClient(stack.url);
    await a.request('POST', '/api/dev/login', { email });
    const b = new TestClient(second);
    b.setCookie('provider-jwt', a.cookie('provider-jwt')!);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await (i % 2 === 0 ? a : b).request('GET', '/api/onboarding/status');
      statuses.push(res.status);
      if (i === 29) expect(res.headers.get('ratelimit-remaining')).toBe('0');
    }
    expect(statuses).toEqual(Array(30).fill(200));
    const refused = await b.request('GET', '/api/onboarding/status');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: expect.any(String), code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('30');
    // Another user has a budget of their own, and the profile route is not limited.
    expect((await a.request('GET', '/api/auth/profile')).status).toBe(200);
    const other = new TestClient(stack.url);
    await other.request('POST', '/api/dev/login', { email: uniqueEmail() });
    expect((await other.request('GET', '/api/onboarding/status')).status).toBe(200);
  }, 90_000);
});

describe('CORS', () => {
  const allowed = [
    'http://localhost:8080',
    'http://localhost:3000',
    'http://localhost:3001',
    'http://localhost:5173',
    'null',
  ];

  it('echoes exactly an allowed origin with credentials, never a wildcard', async () => {
    for (const origin of allowed) {
      const res = await fetch(`${stack.url}/health`, { headers: { origin } });
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    }
  });

  it('answers preflight for allowed origins', async () => {
    const res = await fetch(`${stack.url}/api/cart`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
  });

  it('gives other origins no CORS headers', async () => {
    for (const origin of ['http://evil.example', 'http://localhost:9999', 'https://localhost:5173']) {
      const res = await fetch(`${stack.url}/health`, { headers: { origin } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  describe('in production', () => {
    /** A production gateway beside the test one: its own keys, a NATS credential, the stand-ins named. */
    const production = () => ({
      NODE_ENV: 'production',
      DATA_ENCRYPTION_KEY: testDataEncryptionKey(stack.env).toString('hex'),
      NATS_USER: 'gateway',
      NATS_PASSWORD: 'any-the-test-nats-is-open',
      PRODUCT_SERVICE: 'mock',
      CHAT_MODEL: 'offline',
    });
    const corsOf = async (url: string, origin: string) => {
      const simple = await fetch(`${url}/health`, { headers: { origin } });
      const preflight = await fetch(`${url}/api/cart`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      return [simple, preflight].map((res) => [
        res.headers.get('access-control-allow-origin'),
        res.headers.get('access-control-allow-credentials'),
      ]);
    };

    it('refuses origin null and the localhost origins unless the operator lists them', async () => {
      const url = await stack.startGateway(production());
      for (const origin of allowed) {
        expect([origin, await corsOf(url, origin)]).toEqual([
          origin,
          [
            [null, null],
            [null, null],
          ],
        ]);
      }
    });

    it("echoes exactly the operator's CORS_ORIGINS, null only when listed", async () => {
      const url = await stack.startGateway({
        ...production(),
        CORS_ORIGINS: 'https://shop.example.com,null',
      });
      for (const origin of ['https://shop.example.com', 'null']) {
        expect([origin, await corsOf(url, origin)]).toEqual([
          origin,
          [
            [origin, 'true'],
            [origin, 'true'],
          ],
        ]);
      }
      for (const origin of [
        'http://localhost:5173',
        'https://evil.example.com',
        'https://shop.example.com.evil',
      ]) {
        expect([origin, await corsOf(url, origin)]).toEqual([
          origin,
          [
            [null, null],
            [null, null],
          ],
        ]);
      }
    });
  });
});
