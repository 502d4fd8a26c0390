import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** The request's correlation id (see installRequestContext), for the commands the route runs to record. */
export const CorrelationId = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined =>
    ctx.switchToHttp().getRequest<FastifyRequest>().correlationId,
);
