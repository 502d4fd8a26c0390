import { ArgumentsHost, Catch, ExceptionFilter, Inject } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Logger } from '@shop/observability';
import { LOGGER } from '../infrastructure/tokens';
import { toErrorResponse } from './error-envelope';

/** Every error a route throws, and unknown routes, leave through the same envelope. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const response = toErrorResponse(exception);
    if (response.unexpected) this.logger.error({ err: exception }, 'unhandled error');
    if (reply.sent) return;
    if (response.headers) reply.headers(response.headers);
    reply.status(response.status).send(response.body);
  }
}
