import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { API_ROUTE, ApiRouteSpec } from './api-route';
import { assertStorable } from './storable-text';

function routeSpec(ctx: ExecutionContext): ApiRouteSpec {
  const spec = Reflect.getMetadata(API_ROUTE, ctx.getHandler()) as ApiRouteSpec | undefined;
  if (!spec) throw new Error(`${ctx.getClass().name}.${ctx.getHandler().name} has no @ApiRoute`);
  return spec;
}

/** The request body parsed by the route's own schema; a ZodError becomes 400 VALIDATION_ERROR. Text no read model can store is refused the same way. */
export const ValidBody = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const schema = routeSpec(ctx).body;
  if (!schema) throw new Error('@ValidBody on a route without a body schema');
  return assertStorable(schema.parse(ctx.switchToHttp().getRequest<FastifyRequest>().body ?? {}));
});

export const ValidQuery = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const schema = routeSpec(ctx).query;
  if (!schema) throw new Error('@ValidQuery on a route without a query schema');
  return assertStorable(schema.parse(ctx.switchToHttp().getRequest<FastifyRequest>().query ?? {}));
});

export const ValidParams = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const schema = routeSpec(ctx).params;
  if (!schema) throw new Error('@ValidParams on a route without a params schema');
  return assertStorable(schema.parse(ctx.switchToHttp().getRequest<FastifyRequest>().params ?? {}));
});
