import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';
import { stableUuid } from './ids';

export interface IdentityOptions {
  issuer: string;
  audience: string;
  tokenTtlSeconds: number;
  refreshTtlSeconds: number;
}

/** Same shape as the provider's refresh answer, so a session from either source is handled alike. */
export interface IssuedSession {
  jwt: string;
  refresh: { secret: string; expiresAt: string };
  user: { id: string; email: string };
}

const algorithm = 'RS256';

/** Signs user JWTs with a key pair made at start-up and publishes its public half as a JWKS. */
export class IdentityProvider {
  private readonly refreshTokens = new Map<string, { email: string; expiresAt: number }>();

  private constructor(
    private readonly options: IdentityOptions,
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: JWK,
  ) {}

  static async create(options: IdentityOptions): Promise<IdentityProvider> {
    const { privateKey, publicKey } = await generateKeyPair(algorithm);
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return new IdentityProvider(options, privateKey, { ...jwk, kid, alg: algorithm, use: 'sig' });
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  /** The user id depends only on the address, as a returning provider user keeps theirs. */
  userIdFor(email: string): string {
    return stableUuid(`provider-user:${email.trim().toLowerCase()}`);
  }

  async issue(email: string, ttlSeconds = this.options.tokenTtlSeconds): Promise<IssuedSession> {
    const now = Math.floor(Date.now() / 1000);
    const userId = this.userIdFor(email);
    const jwt = await new SignJWT({ email })
      .setProtectedHeader({ alg: algorithm, kid: this.publicJwk.kid, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.privateKey);
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + this.options.refreshTtlSeconds * 1000;
    this.refreshTokens.set(secret, { email, expiresAt });
    return {
      jwt,
      refresh: { secret, expiresAt: new Date(expiresAt).toISOString() },
      user: { id: userId, email },
    };
  }

  /** Rotates: the presented secret is spent whether or not it was still valid. */
  async refresh(secret: string): Promise<IssuedSession | undefined> {
    const entry = this.refreshTokens.get(secret);
    this.refreshTokens.delete(secret);
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    return this.issue(entry.email);
  }
}
