import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from '@shop/redis';
import { REDIS } from '../infrastructure/tokens';
import { AgentPrincipal, credentialHash } from './agent-credentials';

/** How long an access token works: short, since a refresh against the grant's stream renews it. */
export const accessTokenLifetimeSeconds = 600;
/** An authorization code must be exchanged within this (OAuth 2.1 asks for a short life). */
export const authorizationCodeLifetimeSeconds = 60;
/** How long a consent page stays answerable. */
export const consentLifetimeSeconds = 600;

/** The parameters of an authorization request, as the consent page approves them. */
export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string;
  resource: string;
}

export interface StoredAuthorizationCode {
  expiresAt: string;
  redirectUri: string;
  scope: string[];
  clientId: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  user: { userId: string; grantId: string; clientName: string; resource: string };
}

const keys = {
  access: (token: string) => `agent:access:${credentialHash(token)}`,
  code: (code: string) => `agent:code:${credentialHash(code)}`,
  consent: (id: string) => `agent:consent:${credentialHash(id)}`,
};

/**
 * The short-lived secrets of the agents' OAuth flow, by hash, in Redis: consent requests, codes
 * (single use, 60 s) and access tokens (10 min). None of them is state: each only ever stands for
 * a grant on the stream, which decides whether it still counts, and losing them all costs an
 * agent one refresh (or the shopper one approval), never a wrong answer.
 */
@Injectable()
export class AgentTokenStore {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async saveConsent(id: string, userId: string, request: AuthorizationRequest): Promise<void> {
    await this.redis.set(keys.consent(id), JSON.stringify({ userId, request }), 'EX', consentLifetimeSeconds);
  }

  /** Answers a consent once, and only for the shopper it was shown to. */
  async takeConsent(id: string, userId: string): Promise<AuthorizationRequest | undefined> {
    const stored = await this.redis.getdel(keys.consent(id));
    if (!stored) return undefined;
    const consent = JSON.parse(stored) as { userId: string; request: AuthorizationRequest };
    return consent.userId === userId ? consent.request : undefined;
  }

  async saveCode(code: string, stored: StoredAuthorizationCode): Promise<void> {
    await this.redis.set(keys.code(code), JSON.stringify(stored), 'EX', authorizationCodeLifetimeSeconds);
  }

  async readCode(code: string): Promise<StoredAuthorizationCode | undefined> {
    const stored = await this.redis.get(keys.code(code));
    return stored ? (JSON.parse(stored) as StoredAuthorizationCode) : undefined;
  }

  /** True for the one caller that spends the code, across every gateway. */
  async spendCode(code: string): Promise<boolean> {
    return (await this.redis.del(keys.code(code))) === 1;
  }

  async saveAccessToken(token: string, principal: AgentPrincipal): Promise<void> {
    await this.redis.set(keys.access(token), JSON.stringify(principal), 'EX', accessTokenLifetimeSeconds);
  }

  async readAccessToken(token: string): Promise<AgentPrincipal | undefined> {
    const stored = await this.redis.get(keys.access(token));
    return stored ? (JSON.parse(stored) as AgentPrincipal) : undefined;
  }

  async dropAccessToken(token: string): Promise<void> {
    await this.redis.del(keys.access(token));
  }
}
