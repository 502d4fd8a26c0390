import { Controller, Get, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { ApiRoute } from '@shop/http';
import { ValidBody } from '@shop/http';
import { CONFIG } from '../infrastructure/tokens';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import {
  clearSessionCookies,
  cookiePolicy,
  EMAIL_COOKIE,
  REFRESH_COOKIE,
  SESSION_COOKIE,
  sessionCookieFamilies,
  setSessionCookie,
} from '../auth/session-cookies';
import type { SessionIdentity } from '../auth/session-identity';
import { SessionRefresher } from '../auth/session-refresher';
import { TokenVerifier } from '../auth/token-verifier';
import { GetProfileQuery, UserProfile, userProfileSchema } from './get-profile.query';
import { RegisterUserCommand } from './register-user.command';

const sessionBody = z.object({
  jwt: z.string().min(1).max(8192).describe('identity-provider access token'),
  refreshToken: z.string().min(1).max(8192).optional(),
  email: z
    .email()
    .max(320)
    .optional()
    .describe(
      "sets the user-email cookie when it is the token's own email (any case); any other email is ignored: " +
        'the profile email and the payment wallet follow the verified token only',
    ),
});
const success = z.object({ success: z.boolean() });

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly verifier: TokenVerifier,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly refresher: SessionRefresher,
  ) {}

  @Post('session')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Exchange an identity-provider JWT for HttpOnly session cookies',
    tags: ['auth'],
    access: 'public',
    body: sessionBody,
    responses: { 200: { description: 'Cookies set', schema: success } },
    errors: [
      { status: 400, code: 'VALIDATION_ERROR', description: 'body failed validation' },
      { status: 401, code: 'UNAUTHORIZED', description: 'JWT invalid or malformed' },
      { status: 403, code: 'ACCOUNT_CLOSED', description: 'the account of this identity was closed' },
    ],
  })
  async createSession(
    @ValidBody() body: z.infer<typeof sessionBody>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: boolean }> {
    const identity = await this.verifier.verify(body.jwt);
    // The body proves nothing: only the verified token says whose email (and so whose wallet) it is.
    await this.commands.execute(new RegisterUserCommand(identity.providerSubject, identity.email));
    const policy = { secure: this.config.NODE_ENV === 'production' };
    const refreshed = body.refreshToken
      ? await this.acceptedRefresh(body.refreshToken, identity.providerSubject)
      : null;
    if (refreshed) {
      setSessionCookie(reply, SESSION_COOKIE, refreshed.jwt, refreshed.expiresAt, policy);
      setSessionCookie(reply, REFRESH_COOKIE, refreshed.refreshToken, refreshed.refreshExpiresAt, policy);
    } else {
      setSessionCookie(reply, SESSION_COOKIE, body.jwt, identity.expiresAt, policy);
    }
    if (body.email && identity.email && sameEmail(body.email, identity.email)) {
      setSessionCookie(reply, EMAIL_COOKIE, identity.email, identity.expiresAt, policy);
    }
    return { success: true };
  }

  /**
   * A refresh token counts as accepted only when the provider exchanges it for a session of
   * the same subject. Exchanging rotates it, so the rotated pair is what the cookies keep.
   */
  private async acceptedRefresh(refreshToken: string, subject: string) {
    if (!this.refresher.enabled) return null;
    try {
      const refreshed = await this.refresher.refresh(refreshToken);
      const identity = await this.verifier.verify(refreshed.jwt);
      if (identity.providerSubject !== subject) return null;
      return {
        jwt: refreshed.jwt,
        expiresAt: identity.expiresAt,
        refreshToken: refreshed.refresh.secret,
        refreshExpiresAt: new Date(refreshed.refresh.expiresAt),
      };
    } catch {
      return null;
    }
  }

  @Get('profile')
  @ApiRoute({
    summary: "The signed-in user's profile, from the read model",
    tags: ['auth'],
    access: 'session',
    responses: { 200: { description: 'Profile', schema: userProfileSchema } },
    errors: [
      { status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' },
      { status: 404, code: 'USER_NOT_FOUND', description: 'valid JWT, no user record' },
    ],
  })
  profile(@CurrentIdentity() identity: SessionIdentity): Promise<UserProfile> {
    return this.queries.execute(new GetProfileQuery(identity.userId));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiRoute({
    summary: "Clear the session cookies, the provider browser SDK's pair too (idempotent)",
    tags: ['auth'],
    access: 'public',
    responses: { 200: { description: 'Cookies cleared', schema: z.object({ success: z.literal(true) }) } },
  })
  logout(@Res({ passthrough: true }) reply: FastifyReply): { success: true } {
    clearSessionCookies(reply, sessionCookieFamilies(this.config), cookiePolicy(this.config));
    return { success: true };
  }
}
