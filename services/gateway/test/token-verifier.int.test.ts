import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, loadConfig } from '@shop/config';
import { TokenVerifier } from '../src/auth/token-verifier';

const issuer = 'https://provider.test';
const audience = 'shop-project';
let server: Server;
let trusted: Awaited<ReturnType<typeof generateKeyPair>>;
let untrusted: Awaited<ReturnType<typeof generateKeyPair>>;
let publicPem: string;
let verifier: TokenVerifier;
let productionVerifier: TokenVerifier;

const sign = (
  key: CryptoKey,
  claims: { iss?: string; aud?: string; sub?: string | null; exp?: number; nbf?: number },
  alg = 'RS256',
) => {
  const jwt = new SignJWT({ email: 'a@example.com' }).setProtectedHeader({ alg, kid: 'k1' }).setIssuedAt();
  if (claims.sub !== null) jwt.setSubject(claims.sub ?? 'provider-user-1');
  jwt.setIssuer(claims.iss ?? issuer).setAudience(claims.aud ?? audience);
  jwt.setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600);
  if (claims.nbf) jwt.setNotBefore(claims.nbf);
  return jwt.sign(key);
};

beforeAll(async () => {
  trusted = await generateKeyPair('RS256', { extractable: true });
  untrusted = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(trusted.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const { createPublicKey } = await import('node:crypto');
  publicPem = createPublicKey({ key: jwk as never, format: 'jwk' })
    .export({ type: 'spki', format: 'pem' })
    .toString();
  server = createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = {
    PROVIDER_JWKS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    PROVIDER_JWT_ISSUER: issuer,
    PROVIDER_JWT_AUDIENCE: audience,
    DEV_JWT_SECRET: 'x'.repeat(40),
  };
  verifier = new TokenVerifier(loadConfig(gatewayEnv, { ...base, NODE_ENV: 'test' }));
  productionVerifier = new TokenVerifier(
    loadConfig(gatewayEnv, {
      ...base,
      NODE_ENV: 'production',
      WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
      DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
      NATS_CREDS: '/run/secrets/gateway.creds',
      PRODUCT_SERVICE: 'mock',
      CHAT_MODEL: 'offline',
    }),
  );
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const expectRefused = async (token: string, v = verifier) =>
  expect(v.verify(token)).rejects.toMatchObject({ kind: 'unauthorized', code: 'UNAUTHORIZED' });

describe('TokenVerifier: provider tokens checked against the JWKS', () => {
  it('accepts a token signed by the provider key with the right issuer and audience', async () => {
    const identity = await verifier.verify(await sign(trusted.privateKey, {}));
    expect(identity).toMatchObject({
      providerSubject: 'provider-user-1',
      email: 'a@example.com',
      source: 'provider',
    });
  });

  it('refuses a token signed by another key under the same kid', async () => {
    await expectRefused(await sign(untrusted.privateKey, {}));
  });

  it('refuses the wrong issuer and the wrong audience', async () => {
    await expectRefused(await sign(trusted.privateKey, { iss: 'https://evil.test' }));
    await expectRefused(await sign(trusted.privateKey, { aud: 'someone-else' }));
  });

  it('refuses expired and not-yet-valid tokens', async () => {
    await expectRefused(await sign(trusted.privateKey, { exp: Math.floor(Date.now() / 1000) - 5 }));
    await expectRefused(await sign(trusted.privateKey, { nbf: Math.floor(Date.now() / 1000) + 600 }));
  });

  it('refuses unsigned (alg: none) and tampered tokens', async () => {
    const good = await sign(trusted.privateKey, {});
    const [, payload] = good.split('.');
    await expectRefused(`${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`);
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'victim' }),
    ).toString('base64url');
    const [header, , signature] = good.split('.');
    await expectRefused(`${header}.${forged}.${signature}`);
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const token = await sign(new TextEncoder().encode(publicPem) as unknown as CryptoKey, {}, 'HS256');
    await expectRefused(token);
    await expectRefused(token, productionVerifier);
  });

  it('refuses a token without a subject, and garbage', async () => {
    await expectRefused(await sign(trusted.privateKey, { sub: null }));
    await expectRefused('a.b.c');
    await expectRefused('');
  });

  it('trusts dev tokens only outside production', async () => {
    const { token } = await verifier.issueDevToken('dev@example.com');
    expect((await verifier.verify(token)).source).toBe('dev');
    await expectRefused(token, productionVerifier);
    await expect(productionVerifier.issueDevToken('dev@example.com')).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});
