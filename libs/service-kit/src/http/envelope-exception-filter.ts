import { ArgumentsHost, Catch, ExceptionFilter, Provider } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import type { Logger } from '@shop/logging';
import { LOGGER } from '../tokens';
import type { ErrorResponse } from './error-response';

/** Every error a route throws, and unknown routes, leave in the service's own envelope. */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly toErrorResponse: (error: unknown) => ErrorResponse,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const response = this.toErrorResponse(exception);
    if (response.unexpected) this.logger.error({ err: exception }, 'unhandled error');
    if (reply.sent) return;
    if (response.headers) reply.headers(response.headers);
    reply.status(response.status).send(response.body);
  }
}

/** The app-wide filter answering every error through `toErrorResponse`, the service's one envelope. */
export function envelopeExceptionFilter(toErrorResponse: (error: unknown) => ErrorResponse): Provider {
  return {
    provide: APP_FILTER,
    inject: [LOGGER],
    useFactory: (logger: Logger) => new EnvelopeExceptionFilter(logger, toErrorResponse),
  };
}
