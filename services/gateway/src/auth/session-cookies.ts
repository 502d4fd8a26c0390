import type { FastifyReply } from 'fastify';
import type { GatewayConfig } from '@shop/config';

export const SESSION_COOKIE = 'provider-jwt';
export const REFRESH_COOKIE = 'provider-refresh-token';
export const EMAIL_COOKIE = 'user-email';

export interface CookiePolicy {
  secure: boolean;
}

/** The two cookies that hold one session: the access JWT and the refresh token that renews it. */
export interface SessionCookieFamily {
  jwt: string;
  refresh: string;
  /**
   * The provider's browser SDK owns its pair: it reads both from `document.cookie`, renews them
   * itself and writes them back, and it never calls POST /api/auth/session, so the first request
   * it sends is where its user is registered.
   */
  browserSdk: boolean;
}

/** The spec's pair, set by POST /api/auth/session (HttpOnly). */
export const exchangedSession: SessionCookieFamily = {
  jwt: SESSION_COOKIE,
  refresh: REFRESH_COOKIE,
  browserSdk: false,
};

/** Every pair a request may carry a session in, in the order they are checked. */
export function sessionCookieFamilies(
  config: Pick<GatewayConfig, 'PROVIDER_SDK_JWT_COOKIE' | 'PROVIDER_SDK_REFRESH_COOKIE'>,
): readonly SessionCookieFamily[] {
  return [
    exchangedSession,
    { jwt: config.PROVIDER_SDK_JWT_COOKIE, refresh: config.PROVIDER_SDK_REFRESH_COOKIE, browserSdk: true },
  ];
}

export const cookiePolicy = (config: Pick<GatewayConfig, 'NODE_ENV'>): CookiePolicy => ({
  secure: config.NODE_ENV === 'production',
});

/** HttpOnly, SameSite=Lax, Path=/, Secure in production; the lifetime follows the token. */
export function setSessionCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  expiresAt: Date,
  policy: CookiePolicy,
): void {
  reply.setCookie(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: policy.secure,
    maxAge: maxAgeOf(expiresAt),
    expires: expiresAt,
  });
}

/** A renewed session, written back under the names of the pair it renews. */
export interface SessionPair {
  jwt: string;
  jwtExpiresAt: Date;
  refresh: string;
  refreshExpiresAt: Date;
}

export function writeSessionPair(
  reply: FastifyReply,
  family: SessionCookieFamily,
  pair: SessionPair,
  policy: CookiePolicy,
): void {
  const write = family.browserSdk ? setBrowserSdkCookie : setSessionCookie;
  write(reply, family.jwt, pair.jwt, pair.jwtExpiresAt, policy);
  write(reply, family.refresh, pair.refresh, pair.refreshExpiresAt, policy);
}

/**
 * As the SDK writes its own: readable by the page's script (the SDK reads the refresh token from
 * `document.cookie` to renew the session, and a script cannot overwrite an HttpOnly cookie, so
 * HttpOnly would end its session on the next page load), host-only with Path=/ so it replaces the
 * SDK's cookie rather than sitting beside it, SameSite=Lax, expiring with the token, and the value
 * unencoded, since the SDK takes the text after `=` as it is. Secure in production, where the
 * frontend is served over HTTPS and its script still reads and rewrites a Secure cookie.
 */
function setBrowserSdkCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  expiresAt: Date,
  policy: CookiePolicy,
): void {
  reply.setCookie(name, value, {
    httpOnly: false,
    sameSite: 'lax',
    path: '/',
    secure: policy.secure,
    maxAge: maxAgeOf(expiresAt),
    expires: expiresAt,
    encode: (raw) => raw,
  });
}

function maxAgeOf(expiresAt: Date): number {
  return Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
}

function clearSessionFamily(reply: FastifyReply, family: SessionCookieFamily, policy: CookiePolicy): void {
  for (const name of [family.jwt, family.refresh]) {
    reply.clearCookie(name, {
      httpOnly: !family.browserSdk,
      sameSite: 'lax',
      path: '/',
      secure: policy.secure,
    });
  }
}

/** Ends every session the browser holds: each family's pair and the email cookie. */
export function clearSessionCookies(
  reply: FastifyReply,
  families: readonly SessionCookieFamily[],
  policy: CookiePolicy,
): void {
  for (const family of families) clearSessionFamily(reply, family, policy);
  reply.clearCookie(EMAIL_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: policy.secure });
}
