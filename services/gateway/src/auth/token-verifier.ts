import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, JWTPayload, SignJWT } from 'jose';
import type { GatewayConfig } from '@shop/config';
import { devProviderSubject, DomainError, userIdForProviderSubject } from '@shop/domain';
import { CONFIG } from '../infrastructure/tokens';

export interface VerifiedIdentity {
  providerSubject: string;
  /** The internal user id, derived from the subject once per token rather than per request. */
  userId: string;
  email: string | null;
  expiresAt: Date;
  source: 'provider' | 'dev';
}

/** Provider tokens are asymmetric only: an HMAC or `none` token can never pass as one. */
const providerAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];
const devIssuer = 'shop-dev-login';
const verifiedCacheSize = 10_000;

export const invalidSession = () =>
  new DomainError('unauthorized', 'UNAUTHORIZED', 'Missing, expired or invalid session');

/** A token that was valid but has expired: the one case a refresh token can rescue. */
export class ExpiredSessionError extends DomainError {
  constructor() {
    super('unauthorized', 'UNAUTHORIZED', 'Missing, expired or invalid session');
  }
}

/**
 * Verifies a session JWT: signature, expiry and not-before, algorithm allow-list, and issuer
 * and audience where configured. Never decodes and trusts. Dev tokens (HS256 under a key
 * of this deployment) are accepted only outside production.
 */
@Injectable()
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;
  private readonly devKey: Uint8Array | null;
  private readonly verified = new Map<string, VerifiedIdentity>();

  constructor(@Inject(CONFIG) private readonly config: GatewayConfig) {
    this.jwks = config.PROVIDER_JWKS_URL
      ? createRemoteJWKSet(new URL(config.PROVIDER_JWKS_URL), { cacheMaxAge: 600_000, timeoutDuration: 5000 })
      : null;
    this.devKey =
      config.NODE_ENV === 'production'
        ? null
        : new TextEncoder().encode(config.DEV_JWT_SECRET ?? randomBytes(32).toString('hex'));
  }

  get devLoginEnabled(): boolean {
    return this.devKey !== null;
  }

  /**
   * Verifying a signature costs more than the rest of a cheap request, and the same cookie comes
   * back on every call; a verified token is remembered until it expires (expiry still checked).
   */
  async verify(token: string): Promise<VerifiedIdentity> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt.getTime() > Date.now()) return known;
      this.verified.delete(token);
    }
    const identity = await this.verifyAfresh(token);
    this.verified.set(token, identity);
    if (this.verified.size > verifiedCacheSize) this.verified.delete(this.verified.keys().next().value!);
    return identity;
  }

  private async verifyAfresh(token: string): Promise<VerifiedIdentity> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw invalidSession();
    }
    try {
      if (alg === 'HS256' && this.devKey) {
        const { payload } = await jwtVerify(token, this.devKey, {
          algorithms: ['HS256'],
          issuer: devIssuer,
          audience: devIssuer,
        });
        return this.identity(payload, 'dev');
      }
      if (!this.jwks) throw invalidSession();
      const { payload } = await jwtVerify(token, this.jwks, {
        algorithms: providerAlgorithms,
        ...(this.config.PROVIDER_JWT_ISSUER ? { issuer: this.config.PROVIDER_JWT_ISSUER } : {}),
        ...(this.config.PROVIDER_JWT_AUDIENCE ? { audience: this.config.PROVIDER_JWT_AUDIENCE } : {}),
      });
      return this.identity(payload, 'provider');
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof errors.JWTExpired) throw new ExpiredSessionError();
      throw invalidSession();
    }
  }

  /** A dev session token for `email`; only this deployment's dev key can sign it. */
  async issueDevToken(
    email: string,
    ttlSeconds = 86_400,
  ): Promise<{ token: string; identity: VerifiedIdentity }> {
    if (!this.devKey) throw new DomainError('not_found', 'NOT_FOUND', 'Route not found');
    const token = await new SignJWT({ email })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(devProviderSubject(email))
      .setIssuer(devIssuer)
      .setAudience(devIssuer)
      .setIssuedAt()
      .setNotBefore('0s')
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.devKey);
    return { token, identity: await this.verify(token) };
  }

  private identity(payload: JWTPayload, source: VerifiedIdentity['source']): VerifiedIdentity {
    if (!payload.sub || typeof payload.exp !== 'number') throw invalidSession();
    const email = typeof payload.email === 'string' ? payload.email : null;
    return {
      providerSubject: payload.sub,
      userId: userIdForProviderSubject(payload.sub),
      email,
      expiresAt: new Date(payload.exp * 1000),
      source,
    };
  }
}
