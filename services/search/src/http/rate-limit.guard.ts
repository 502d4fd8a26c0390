import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@shop/domain';
import { rateLimitHeaders, RateLimiter } from '@shop/redis';

export const SEARCH_RATE_LIMITER = Symbol('SEARCH_RATE_LIMITER');
export const SEARCH_REQUESTS_PER_MINUTE = 10;

/** The spec's 10 requests a minute per client address on the search and product routes, shared by every instance. */
@Injectable()
export class SearchRateLimitGuard implements CanActivate {
  constructor(@Inject(SEARCH_RATE_LIMITER) private readonly limiter: RateLimiter) {}

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
