import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { DomainError, userIdForProviderSubject } from '@shop/domain';
import { API_ROUTE, ApiRouteSpec } from '@shop/http';
import { ProviderClient } from '@shop/provider';
import type { ReadModelDatabase } from '@shop/read-models';
import { RateLimiter, rateLimitHeaders } from '@shop/redis';
import { CONFIG, PROVIDER, RATE_LIMITER, READ_DB } from '../infrastructure/tokens';
import { clearSessionCookies, REFRESH_COOKIE, SESSION_COOKIE, setSessionCookie } from './session-cookies';
import { AuthenticatedRequest, SessionIdentity } from './session-identity';
import { ExpiredSessionError, invalidSession, TokenVerifier, VerifiedIdentity } from './token-verifier';

/** The route groups that share the per-user request budget (the spec's Limits table). */
const rateLimitedPrefixes = [
  '/api/onboarding',
  '/api/chat',
  '/api/sessions',
  '/api/checkout',
  '/api/orders',
  '/api/cart',
];

const onboardedCacheSize = 100_000;

const onboardingIncomplete = () =>
  new DomainError('forbidden', 'ONBOARDING_INCOMPLETE', 'Complete onboarding before using this route');

/**
 * Enforces each route's access class from its @ApiRoute, so the documented class is the
 * enforced one: public; session (a valid cookie, 401 otherwise); gated (also onboarding
 * step 3, 403 otherwise). 401 is decided before 403, and both before the rate limit.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly onboarded = new Set<string>();

  constructor(
    private readonly verifier: TokenVerifier,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    private readonly aggregates: Aggregates,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = Reflect.getMetadata(API_ROUTE, context.getHandler()) as ApiRouteSpec | undefined;
    if (!spec || spec.access === 'public') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const reply = http.getResponse<FastifyReply>();

    const identity = await this.authenticate(request, reply);
    request.identity = identity;

    if (spec.access === 'gated' && !this.onboarded.has(identity.userId)) {
      if (!(await this.hasOnboarded(identity.userId))) throw onboardingIncomplete();
      // The step never decreases, so "onboarded" cannot go stale (only "not yet" could).
      this.onboarded.add(identity.userId);
      if (this.onboarded.size > onboardedCacheSize)
        this.onboarded.delete(this.onboarded.values().next().value!);
    }

    const path = request.routeOptions.url ?? request.url;
    if (rateLimitedPrefixes.some((prefix) => path.startsWith(prefix))) {
      const decision = await this.limiter.hit(identity.userId);
      const headers = rateLimitHeaders(decision);
      if (!decision.allowed) {
        throw new DomainError('rate_limited', 'RATE_LIMIT_EXCEEDED', 'Too many requests; slow down', headers);
      }
      reply.headers(headers);
    }
    return true;
  }

  /**
   * The read model answers "yes" cheaply, but its "not yet" may only mean the projector is
   * behind (busy, catching up, restarting): the user aggregate in the stream has the last word,
   * so step 3 opens the gated routes at once.
   */
  private async hasOnboarded(userId: string): Promise<boolean> {
    const user = await this.db
      .selectFrom('users')
      .select('onboarding_step')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (user && user.onboarding_step >= 3) return true;
    const { state } = await this.aggregates.user.state(userId);
    return state.onboardingStep >= 3;
  }

  /**
   * The session cookie lives exactly as long as its token, so once it expires a browser sends
   * only the refresh cookie: either case (expired or absent) is rescued by a refresh.
   */
  private async authenticate(request: AuthenticatedRequest, reply: FastifyReply): Promise<SessionIdentity> {
    const token = request.cookies?.[SESSION_COOKIE];
    const refreshToken = request.cookies?.[REFRESH_COOKIE];
    const canRefresh = Boolean(refreshToken && this.provider);
    let verified: VerifiedIdentity;
    if (token) {
      try {
        verified = await this.verifier.verify(token);
      } catch (error) {
        if (!(error instanceof ExpiredSessionError) || !canRefresh) throw error;
        verified = await this.refresh(refreshToken!, reply);
      }
    } else {
      if (!canRefresh) throw invalidSession();
      verified = await this.refresh(refreshToken!, reply);
    }
    return { ...verified, userId: userIdForProviderSubject(verified.providerSubject) };
  }

  /** Exchanges the refresh cookie at the provider and rotates both cookies; any failure ends the session. */
  private async refresh(refreshToken: string, reply: FastifyReply): Promise<VerifiedIdentity> {
    const policy = { secure: this.config.NODE_ENV === 'production' };
    try {
      const refreshed = await this.provider!.refreshSession(refreshToken);
      const verified = await this.verifier.verify(refreshed.jwt);
      setSessionCookie(reply, SESSION_COOKIE, refreshed.jwt, verified.expiresAt, policy);
      setSessionCookie(
        reply,
        REFRESH_COOKIE,
        refreshed.refresh.secret,
        new Date(refreshed.refresh.expiresAt),
        policy,
      );
      return verified;
    } catch {
      clearSessionCookies(reply, policy);
      throw invalidSession();
    }
  }
}
