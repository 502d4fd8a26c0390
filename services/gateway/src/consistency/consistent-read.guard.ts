import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { API_ROUTE, ApiRouteSpec } from '@shop/http';
import { ServiceMetrics } from '@shop/metrics';
import { ReadModelPositions } from '@shop/projections';
import type { AuthenticatedRequest } from '../auth/session-identity';
import { CONFIG } from '../infrastructure/tokens';
import { positionsToRead } from './consistency-scope';
import { READS_READ_MODEL } from './reads-read-model.decorator';

/**
 * Before a signed-in read is served, waits (bounded) until the read model holds the writes its
 * consistency token names (and this user's writes made too late for a cookie), so a command
 * answered before its write was readable is never followed by a stale read or a 404 of what was
 * just created. Commands do not wait unless marked `@ReadsReadModel()`: they are decided on their
 * aggregates, so a lagging projector must not slow every write down.
 *
 * A guard that always admits, not an interceptor: one global interceptor makes Nest wrap every
 * request of every route in an rxjs pipeline, which cost more than the wait's own check. It is
 * registered after the access guard (AppModule imports UserModule first): an unauthenticated
 * caller never makes it wait, and the identity it reads is set.
 */
@Injectable()
export class ConsistentReadGuard implements CanActivate {
  constructor(
    private readonly positions: ReadModelPositions,
    private readonly metrics: ServiceMetrics,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const spec = Reflect.getMetadata(API_ROUTE, context.getHandler()) as ApiRouteSpec | undefined;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const reads =
      request.method === 'GET' || Reflect.getMetadata(READS_READ_MODEL, context.getHandler()) === true;
    if (spec && spec.access !== 'public' && reads) {
      const positions = positionsToRead(request, request.identity!.userId);
      if (positions.size > 0) {
        const readable = await this.positions.waitUntilReadable(
          positions,
          this.config.CONSISTENT_READ_TIMEOUT_MS,
        );
        if (!readable) this.metrics.consistentReadTimeouts.inc();
      }
    }
    return true;
  }
}
