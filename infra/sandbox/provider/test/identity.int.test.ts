import { ProviderError } from '@shop/provider';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, startProviderSandbox } from '../src';
import { clientFor, uniqueEmail } from './fixtures';

describe('provider sandbox identity', () => {
  let sandbox: ProviderSandbox;
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  beforeAll(async () => {
    sandbox = await startProviderSandbox({
      jwt: { issuer: 'https://auth.sandbox.test', audience: 'project-42' },
    });
    jwks = createRemoteJWKSet(new URL(sandbox.jwksUrl));
  });
  afterAll(() => sandbox.close());

  it('issues RS256 tokens that verify against its JWKS with issuer and audience', async () => {
    const email = uniqueEmail('jwks');
    const session = await sandbox.issueToken(email, { ttlSeconds: 120 });

    const { payload, protectedHeader } = await jwtVerify(session.jwt, jwks, {
      issuer: 'https://auth.sandbox.test',
      audience: 'project-42',
    });

    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.sub).toBe(session.user.id);
    expect(payload.email).toBe(email);
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(payload.nbf).toBe(payload.iat);
  });

  it('refuses its tokens for another audience and once expired', async () => {
    const session = await sandbox.issueToken(uniqueEmail('aud'), { ttlSeconds: 60 });

    await expect(jwtVerify(session.jwt, jwks, { audience: 'other-project' })).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
    await expect(
      jwtVerify(session.jwt, jwks, { currentDate: new Date(Date.now() + 61_000) }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });

  it('keeps one user id per email, across sessions and across restarts, but signs with a new key', async () => {
    const email = uniqueEmail('stable');
    const first = await sandbox.issueToken(email);
    const second = await sandbox.issueToken(email.toUpperCase());
    const restarted = await startProviderSandbox();
    try {
      const third = await restarted.issueToken(email);
      expect(second.user.id).toBe(first.user.id);
      expect(third.user.id).toBe(first.user.id);
      expect(first.user.id).not.toBe((await sandbox.issueToken(uniqueEmail('other'))).user.id);
      expect(decodeProtectedHeader(third.jwt).kid).not.toBe(decodeProtectedHeader(first.jwt).kid);
      await expect(jwtVerify(third.jwt, jwks)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    } finally {
      await restarted.close();
    }
  });

  it('rotates refresh tokens: the new one works once, the spent one is refused', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('refresh');
    const session = await sandbox.issueToken(email);

    const refreshed = await client.refreshSession(session.refresh.secret);

    expect(refreshed.user).toEqual({ id: session.user.id, email });
    expect(refreshed.refresh.secret).not.toBe(session.refresh.secret);
    expect(Date.parse(refreshed.refresh.expiresAt)).toBeGreaterThan(Date.now());
    const { payload } = await jwtVerify(refreshed.jwt, jwks, { audience: 'project-42' });
    expect(payload.sub).toBe(session.user.id);

    const spent = await client.refreshSession(session.refresh.secret).catch((error: unknown) => error);
    expect(spent).toBeInstanceOf(ProviderError);
    expect(spent).toMatchObject({ kind: 'unauthorized', status: 401, operation: 'auth.refresh' });
    await expect(client.refreshSession(refreshed.refresh.secret)).resolves.toMatchObject({
      user: session.user,
    });
  });

  it('answers an unknown refresh token with 401 in the provider error shape', async () => {
    const response = await fetch(`${sandbox.url}/api/2024-09-26/session/sdk/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
      body: JSON.stringify({ refresh: 'not-a-token' }),
    });

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: true,
      message: expect.stringMatching(/refresh token/),
    });
  });
});
