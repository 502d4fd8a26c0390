import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { DomainError } from '@shop/domain';
import type { EventStore } from '@shop/eventstore';
import { API_ROUTE, ApiRouteSpec } from '@shop/http';
import { RateLimiter, rateLimitHeaders } from '@shop/redis';
import { CONFIG, EVENT_STORE, RATE_LIMITER } from '../infrastructure/tokens';
import { clearSessionCookies, REFRESH_COOKIE, SESSION_COOKIE, setSessionCookie } from './session-cookies';
import { AuthenticatedRequest, SessionIdentity } from './session-identity';
import { SessionRefresher } from './session-refresher';
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

const accountCacheSize = 100_000;
/**
 * How long an open account's status is taken from memory. A closure appended by another process
 * (an operator's erasure) reaches this gateway only through the user aggregate, so the status is
 * asked again after this long: one stream look-up per active user per period, and a closed
 * account's session ends within it.
 */
const openStatusTtlMs = 5_000;

const onboardingIncomplete = () =>
  new DomainError('forbidden', 'ONBOARDING_INCOMPLETE', 'Complete onboarding before using this route');

/** What the user aggregate last said of an account; `onboarded` opens the gated routes. */
type AccountStatus = 'open' | 'onboarded' | 'closed';

/**
 * Enforces each route's access class from its @ApiRoute, so the documented class is the
 * enforced one: public; session (a valid cookie of an account that is not closed, 401
 * otherwise); gated (also onboarding step 3, 403 otherwise). 401 is decided before 403, and both
 * before the rate limit.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly accounts = new Map<string, { status: AccountStatus; at: number }>();

  constructor(
    private readonly verifier: TokenVerifier,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly refresher: SessionRefresher,
    private readonly aggregates: Aggregates,
    @Inject(EVENT_STORE) store: EventStore,
  ) {
    // A session token outlives the account it names: a closure on this process ends its sessions at once.
    store.onAppended((events) => {
      for (const event of events)
        if (event.type === 'AccountClosed') this.remember(event.aggregateId, 'closed');
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = Reflect.getMetadata(API_ROUTE, context.getHandler()) as ApiRouteSpec | undefined;
    if (!spec || spec.access === 'public') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const reply = http.getResponse<FastifyReply>();

    const identity = await this.authenticate(request, reply);
    request.identity = identity;
    const status = await this.accountStatus(identity.userId, spec.access === 'gated');
    if (status === 'closed') {
      clearSessionCookies(reply, { secure: this.config.NODE_ENV === 'production' });
      throw invalidSession();
    }
    if (spec.access === 'gated' && status !== 'onboarded') throw onboardingIncomplete();

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
   * Decided by the user aggregate, not the read model: the projector may lag behind a closure
   * or the last onboarding step. "closed" is final. "onboarded" and "open" are kept for
   * `openStatusTtlMs`, or until a closure appended by this process replaces them ("open" is asked
   * again at once when a gated route needs more).
   */
  private async accountStatus(userId: string, needsOnboarding: boolean): Promise<AccountStatus> {
    const known = this.accounts.get(userId);
    if (known?.status === 'closed') return 'closed';
    const enough = known !== undefined && (known.status === 'onboarded' || !needsOnboarding);
    if (enough && performance.now() - known.at < openStatusTtlMs) return known.status;
    const asked = this.aggregates.user
      .state(userId)
      .then(({ state }) => (state.closed ? 'closed' : state.onboardingStep >= 3 ? 'onboarded' : 'open'));
    // Reads are served from Postgres while the stream is unreachable: a status this process
    // already knew stands until the stream answers again.
    const status: AccountStatus = enough ? await asked.catch(() => known.status) : await asked;
    this.remember(userId, status);
    return status;
  }

  private remember(userId: string, status: AccountStatus): void {
    this.accounts.delete(userId);
    this.accounts.set(userId, { status, at: performance.now() });
    if (this.accounts.size > accountCacheSize) this.accounts.delete(this.accounts.keys().next().value!);
  }

  /**
   * The session cookie lives exactly as long as its token, so once it expires a browser sends
   * only the refresh cookie: either case (expired or absent) is rescued by a refresh.
   */
  private async authenticate(request: AuthenticatedRequest, reply: FastifyReply): Promise<SessionIdentity> {
    const token = request.cookies?.[SESSION_COOKIE];
    const refreshToken = request.cookies?.[REFRESH_COOKIE];
    const canRefresh = Boolean(refreshToken && this.refresher.enabled);
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
    return verified;
  }

  /**
   * Exchanges the refresh cookie (once across parallel requests and gateways) and rotates both
   * cookies; any failure ends the session.
   */
  private async refresh(refreshToken: string, reply: FastifyReply): Promise<VerifiedIdentity> {
    const policy = { secure: this.config.NODE_ENV === 'production' };
    try {
      const refreshed = await this.refresher.refresh(refreshToken);
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
