import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { AuthenticatedRequest, SessionIdentity } from './session-identity';

export const CurrentIdentity = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionIdentity => {
  const identity = ctx.switchToHttp().getRequest<AuthenticatedRequest>().identity;
  if (!identity) throw new Error('CurrentIdentity used on a public route');
  return identity;
});
