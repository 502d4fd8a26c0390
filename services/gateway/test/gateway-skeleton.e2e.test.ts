import { randomUUID } from 'node:crypto';
import { parse, validate } from '@readme/openapi-parser';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdForProviderSubject } from '@shop/domain';
import { devJwtSecret, eventually, startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('gateway');
});
afterAll(async () => stack?.stop());

describe('gateway skeleton', () => {
  it('answers the liveness probe', async () => {
    const res = await new TestClient(stack.url).request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
  });

  it('answers unknown routes and malformed JSON in the error envelope', async () => {
    const client = new TestClient(stack.url);
    const missing = await client.request('GET', '/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    const malformed = await client.request('POST', '/api/auth/session', '{"jwt": ');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: expect.any(String), code: 'BAD_REQUEST' });
    const huge = await client.request('POST', '/api/auth/session', { jwt: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.json.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('validates bodies with the route schema and names the field', async () => {
    const res = await new TestClient(stack.url).request('POST', '/api/auth/session', { jwt: 42 });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('VALIDATION_ERROR');
    expect(res.json.error).toMatch(/jwt/);
  });

  it('serves an OpenAPI 3.1 document that a validator accepts, and a local swagger page', async () => {
    const client = new TestClient(stack.url);
    const doc = await client.request('GET', '/doc');
    expect(doc.json.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc.json) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const parsed = (await parse(structuredClone(doc.json) as never)) as { paths: Record<string, unknown> };
    expect(Object.keys(parsed.paths)).toEqual(
      expect.arrayContaining(['/health', '/api/auth/session', '/api/auth/profile']),
    );
    const page = await client.request('GET', '/swagger');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/swagger/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const bundle = await client.request('GET', '/swagger/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });

  it('registers a user on the first session and reads the profile from the read model', async () => {
    const client = new TestClient(stack.url);
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const login = await client.request('POST', '/api/dev/login', { email });
    expect(login.status).toBe(200);
    expect(login.json).toMatchObject({ success: true, email });
    const profile = await client.request('GET', '/api/auth/profile');
    expect(profile.status).toBe(200);
    expect(profile.json).toMatchObject({ userId: login.json.userId, email, onboardingStep: 0 });
    expect(['none', 'pending', 'active']).toContain(profile.json.walletStatus);
  });

  it('registers one user with one stable id under concurrent first sessions', async () => {
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => new TestClient(stack.url).request('POST', '/api/dev/login', { email })),
    );
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    const ids = new Set(results.map((r) => r.json.userId));
    expect(ids.size).toBe(1);
    const userId = [...ids][0] as string;
    expect(userId).toBe(userIdForProviderSubject(`dev|${email}`));

    const store = stack.store;
    // One user, and one wallet: provisioning starts once however many first sessions raced.
    const events = await eventually(
      async () => (await store.load('user', userId)).events,
      (e) => e.length >= 3,
    );
    expect(events.map((e) => e.type)).toEqual([
      'UserRegistered',
      'WalletProvisioningStarted',
      'WalletProvisioned',
    ]);
  });

  it('carries the request correlation id into the events it appends', async () => {
    const client = new TestClient(stack.url);
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const correlationId = `corr-${randomUUID()}`;
    const login = await client.request(
      'POST',
      '/api/dev/login',
      { email },
      { 'x-correlation-id': correlationId },
    );
    expect(login.headers.get('x-correlation-id')).toBe(correlationId);
    const store = stack.store;
    const { events } = await store.load('user', login.json.userId as string);
    expect(events[0]).toMatchObject({ correlationId, actor: { kind: 'user', id: login.json.userId } });
  });

  it('refuses tampered, unsigned and expired session tokens with 401', async () => {
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', { email: 'tamper@example.com' });
    const token = client.cookie('provider-jwt')!;
    const [header, payload, signature] = token.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        sub: 'dev|victim@example.com',
      }),
    ).toString('base64url');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    const expired = await new SignJWT({ email: 'old@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('dev|old@example.com')
      .setIssuer('shop-dev-login')
      .setAudience('shop-dev-login')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(devJwtSecret));
    for (const bad of [`${header}.${forgedPayload}.${signature}`, none, expired, 'not-a-jwt']) {
      const attacker = new TestClient(stack.url);
      attacker.setCookie('provider-jwt', bad);
      const res = await attacker.request('GET', '/api/auth/profile');
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
      const session = await new TestClient(stack.url).request('POST', '/api/auth/session', { jwt: bad });
      expect(session.status).toBe(401);
    }
  });

  it('logs out idempotently, clearing the cookies', async () => {
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', {});
    const out = await client.request('POST', '/api/auth/logout');
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ success: true });
    expect(client.cookie('provider-jwt')).toBeUndefined();
    expect((await client.request('POST', '/api/auth/logout')).status).toBe(200);
    expect((await client.request('GET', '/api/auth/profile')).status).toBe(401);
  });
});
