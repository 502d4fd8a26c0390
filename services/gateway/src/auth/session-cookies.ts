import type { FastifyReply } from 'fastify';

export const SESSION_COOKIE = 'provider-jwt';
export const REFRESH_COOKIE = 'provider-refresh-token';
export const EMAIL_COOKIE = 'user-email';

export interface CookiePolicy {
  secure: boolean;
}

/** HttpOnly, SameSite=Lax, Path=/, Secure in production; the lifetime follows the token. */
export function setSessionCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  expiresAt: Date,
  policy: CookiePolicy,
): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  reply.setCookie(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: policy.secure,
    maxAge,
    expires: expiresAt,
  });
}

export function clearSessionCookies(reply: FastifyReply, policy: CookiePolicy): void {
  for (const name of [SESSION_COOKIE, REFRESH_COOKIE, EMAIL_COOKIE]) {
    reply.clearCookie(name, { httpOnly: true, sameSite: 'lax', path: '/', secure: policy.secure });
  }
}
