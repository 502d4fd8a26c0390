import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@shop/domain';
import { rateLimitHeaders, RateLimiter } from '@shop/redis';

export const SEARCH_RATE_LIMITER = Symbol('SEARCH_RATE_LIMITER');
export const SEARCH_REQUESTS_PER_MINUTE = 10;
export const PAYMENT_VERIFY_RATE_LIMITER = Symbol('PAYMENT_VERIFY_RATE_LIMITER');

/** A budget of requests a minute per client address, shared by every instance. */
abstract class ClientRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const decision = await this.limiter.hit(http.getRequest<FastifyRequest>().ip);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new DomainError(
        'rate_limited',
        'TOO_MANY_REQUESTS',
        `At most ${decision.limit} requests a minute; retry in ${headers['retry-after']} s`,
        headers,
      );
    }
    http.getResponse<FastifyReply>().headers(headers);
    return true;
  }
}

/** The spec's 10 requests a minute per client address on the search and product routes. */
@Injectable()
export class SearchRateLimitGuard extends ClientRateLimitGuard {
  constructor(@Inject(SEARCH_RATE_LIMITER) limiter: RateLimiter) {
    super(limiter);
  }
}

/**
 * POST /api/payment/verify (PAYMENT_VERIFY_RATE_LIMIT_RPM): a verification reads the chain and may
 * append a record, so a stranger cannot make the service do either without bound.
 */
@Injectable()
export class PaymentVerifyRateLimitGuard extends ClientRateLimitGuard {
  constructor(@Inject(PAYMENT_VERIFY_RATE_LIMITER) limiter: RateLimiter) {
    super(limiter);
  }
}
