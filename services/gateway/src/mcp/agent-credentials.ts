import { createHash, randomBytes } from 'node:crypto';
import type { AgentScope } from '@shop/contracts';

/** Who an agent's token speaks for: the grant behind it and what that grant allows. */
export interface AgentPrincipal {
  grantId: string;
  userId: string;
  clientId: string;
  scopes: AgentScope[];
  /** The MCP server (RFC 8707 resource) the token was issued for: its audience. */
  resource: string;
}

/** Tokens and codes are kept (in Redis, on the stream) only as their SHA-256. */
export const credentialHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const randomSecret = (): string => randomBytes(32).toString('base64url');

/**
 * A refresh token names its grant (`<grantId>.<secret>`), so the grant's stream answers whether
 * it is the one token the grant accepts next; the secret alone proves nothing without the hash there.
 */
export const refreshTokenFor = (grantId: string): string => `${grantId}.${randomSecret()}`;

export function grantOfRefreshToken(token: string): string | undefined {
  const grantId = token.split('.')[0] ?? '';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(grantId) ? grantId : undefined;
}
