import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
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
 * aggregates, so a lagging projector must not slow every write down. Runs after the access guard: an
 * unauthenticated caller never makes it wait.
 */
@Injectable()
export class ConsistentReadInterceptor implements NestInterceptor {
  constructor(
    private readonly positions: ReadModelPositions,
    private readonly metrics: ServiceMetrics,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<ReturnType<CallHandler['handle']>> {
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
    return next.handle();
  }
}
