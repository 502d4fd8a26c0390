import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { DomainError } from '@shop/domain';
import type { EventStore } from '@shop/eventstore';
import { API_ROUTE, ApiRouteSpec } from '@shop/http';
import { RateLimiter, rateLimitHeaders } from '@shop/redis';
import { CONFIG, EVENT_STORE, RATE_LIMITER, REFRESH_RATE_LIMITER } from '../infrastructure/tokens';
import { RegisterUserCommand } from '../user/register-user.command';
import {
  clearSessionCookies,
  cookiePolicy,
  CookiePolicy,
  SessionCookieFamily,
  sessionCookieFamilies,
  writeSessionPair,
} from './session-cookies';
import { AccountChanges, ChangeMark } from './account-changes';
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
 * How long an open account's status is taken from memory when AccountChanges cannot vouch that
 * nothing of the account was committed since it was read (its follower interrupted, or not yet
 * started). A closure appended by another process (an operator's erasure) reaches this gateway
 * only through the user aggregate, so a closed account's session then ends within this long.
 */
const openStatusTtlMs = 5_000;

const onboardingIncomplete = () =>
  new DomainError('forbidden', 'ONBOARDING_INCOMPLETE', 'Complete onboarding before using this route');

/**
 * What the user aggregate last said of an account: `unregistered` (a valid token, no user yet),
 * `open`, `onboarded` (opens the gated routes) or `closed`.
 */
type AccountStatus = 'unregistered' | 'open' | 'onboarded' | 'closed';

/** Who a request's cookies prove it comes from, and whether a first sight registers them. */
interface Authenticated {
  identity: SessionIdentity;
  registers: boolean;
}

const isRateLimit = (error: unknown) => error instanceof DomainError && error.kind === 'rate_limited';

/**
 * Enforces each route's access class from its @ApiRoute, so the documented class is the
 * enforced one: public; session (a valid cookie of an account that is not closed, 401
 * otherwise); gated (also onboarding step 3, 403 otherwise). 401 is decided before 403, and both
 * before the rate limit.
 *
 * A session is either pair of cookies (session-cookies.ts): the spec's `provider-jwt`, or the one
 * the provider's browser SDK keeps. Each is verified alike; the SDK's registers its user on the
 * first request, since the SDK never calls POST /api/auth/session.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly accounts = new Map<
    string,
    { status: AccountStatus; at: number; mark: ChangeMark | null }
  >();
  private readonly families: readonly SessionCookieFamily[];
  private readonly policy: CookiePolicy;

  constructor(
    private readonly verifier: TokenVerifier,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(REFRESH_RATE_LIMITER) private readonly refreshLimiter: RateLimiter,
    private readonly refresher: SessionRefresher,
    private readonly aggregates: Aggregates,
    private readonly commands: CommandBus,
    private readonly changes: AccountChanges,
    @Inject(EVENT_STORE) store: EventStore,
  ) {
    this.families = sessionCookieFamilies(config);
    this.policy = cookiePolicy(config);
    // A session token outlives the account it names: a closure on this process ends its sessions at once.
    store.onAppended((events) => {
      for (const event of events)
        if (event.type === 'AccountClosed') this.remember(event.aggregateId, 'closed', null);
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = Reflect.getMetadata(API_ROUTE, context.getHandler()) as ApiRouteSpec | undefined;
    if (!spec || spec.access === 'public') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const reply = http.getResponse<FastifyReply>();

    const { identity, registers } = await this.authenticate(request, reply);
    request.identity = identity;
    const firstSight = !this.accounts.has(identity.userId);
    let status = await this.accountStatus(identity.userId, spec.access === 'gated');
    if (registers && status !== 'closed' && (firstSight || status === 'unregistered'))
      status = await this.register(identity);
    if (status === 'closed') {
      clearSessionCookies(reply, this.families, this.policy);
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
   * or the last onboarding step. "closed" is final. The others are kept until a commit of the
   * account is heard (AccountChanges), or for `openStatusTtlMs` when that cannot be said, and
   * replaced at once by a closure appended by this process ("unregistered" and "open" are asked
   * again at once when a gated route needs more).
   */
  private async accountStatus(userId: string, needsOnboarding: boolean): Promise<AccountStatus> {
    const known = this.accounts.get(userId);
    if (known?.status === 'closed') return 'closed';
    const enough = known !== undefined && (known.status === 'onboarded' || !needsOnboarding);
    if (enough) {
      const changed =
        this.changes.changedSince(userId, known.mark) ?? performance.now() - known.at >= openStatusTtlMs;
      if (!changed) return known.status;
    }
    const mark = this.changes.mark();
    const asked = this.askStatus(userId);
    // Reads are served from Postgres while the stream is unreachable: a status this process
    // already knew stands until the stream answers again.
    const status: AccountStatus = enough ? await asked.catch(() => known.status) : await asked;
    this.remember(userId, status, mark);
    return status;
  }

  private askStatus(userId: string): Promise<AccountStatus> {
    return this.aggregates.user
      .state(userId)
      .then(({ state }) =>
        !state.registered
          ? 'unregistered'
          : state.closed
            ? 'closed'
            : state.onboardingStep >= 3
              ? 'onboarded'
              : 'open',
      );
  }

  /**
   * What POST /api/auth/session does, on the SDK user's first request to this process: registers
   * them (a failed wallet provisioning is retried), and waits (bounded) until the read model shows
   * them, even when a parallel first request registered them an instant ago.
   */
  private async register(identity: SessionIdentity): Promise<AccountStatus> {
    await this.commands.execute(new RegisterUserCommand(identity.providerSubject, identity.email));
    const mark = this.changes.mark();
    const status = await this.askStatus(identity.userId);
    this.remember(identity.userId, status, mark);
    return status;
  }

  private remember(userId: string, status: AccountStatus, mark: ChangeMark | null): void {
    this.accounts.delete(userId);
    this.accounts.set(userId, { status, at: performance.now(), mark });
    if (this.accounts.size > accountCacheSize) this.accounts.delete(this.accounts.keys().next().value!);
  }

  /**
   * Every session the request carries must be a valid one, and all of the same subject: a forged
   * or foreign one beside a valid one, or two people's, leave it unauthenticated rather than
   * choosing between them.
   */
  private async authenticate(request: AuthenticatedRequest, reply: FastifyReply): Promise<Authenticated> {
    const presented = this.families.filter(
      (family) => request.cookies?.[family.jwt] || request.cookies?.[family.refresh],
    );
    let authenticated: Authenticated | undefined;
    for (const family of presented) {
      const identity = await this.authenticateFamily(family, request, reply);
      if (authenticated && authenticated.identity.providerSubject !== identity.providerSubject)
        throw invalidSession();
      authenticated = { identity, registers: Boolean(authenticated?.registers) || family.browserSdk };
    }
    if (!authenticated) throw invalidSession();
    return authenticated;
  }

  /**
   * The access cookie lives exactly as long as its token, so once it expires a browser sends
   * only the refresh cookie: either case (expired or absent) is rescued by a refresh.
   */
  private async authenticateFamily(
    family: SessionCookieFamily,
    request: AuthenticatedRequest,
    reply: FastifyReply,
  ): Promise<VerifiedIdentity> {
    const token = request.cookies?.[family.jwt];
    const refreshToken = request.cookies?.[family.refresh];
    const canRefresh = Boolean(refreshToken && this.refresher.enabled);
    if (token) {
      try {
        return await this.verifier.verify(token);
      } catch (error) {
        if (!(error instanceof ExpiredSessionError) || !canRefresh) throw error;
      }
    } else if (!canRefresh) {
      throw invalidSession();
    }
    return this.refresh(family, refreshToken!, request, reply);
  }

  /**
   * Exchanges the refresh cookie (once across parallel requests and gateways) and rotates the
   * pair under the names it came in. A request without a valid session costs its address one
   * exchange of its budget, counted before the provider is called. Any other failure ends the
   * spec's session; the SDK's pair is left to the SDK, which may have renewed it in the
   * meantime and which logs out by itself when its refresh token no longer works.
   */
  private async refresh(
    family: SessionCookieFamily,
    refreshToken: string,
    request: AuthenticatedRequest,
    reply: FastifyReply,
  ): Promise<VerifiedIdentity> {
    const admit = async () => {
      const decision = await this.refreshLimiter.hit(request.ip);
      if (!decision.allowed)
        throw new DomainError(
          'rate_limited',
          'RATE_LIMIT_EXCEEDED',
          'Too many session refreshes from this address; slow down',
          rateLimitHeaders(decision),
        );
    };
    try {
      const refreshed = await this.refresher.refresh(refreshToken, admit);
      const verified = await this.verifier.verify(refreshed.jwt);
      writeSessionPair(
        reply,
        family,
        {
          jwt: refreshed.jwt,
          jwtExpiresAt: verified.expiresAt,
          refresh: refreshed.refresh.secret,
          refreshExpiresAt: new Date(refreshed.refresh.expiresAt),
        },
        this.policy,
      );
      return verified;
    } catch (error) {
      if (isRateLimit(error)) throw error;
      if (!family.browserSdk) clearSessionCookies(reply, [family], this.policy);
      throw invalidSession();
    }
  }
}
