import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '@shop/domain';
import { authorizationErrorPage } from './consent-page';

/**
 * The consent page is opened in the shopper's browser, not by a script: without a session it
 * answers a page saying what to do rather than the API's JSON envelope.
 */
@Catch(DomainError)
export class ConsentSignInFilter implements ExceptionFilter {
  catch(error: DomainError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const status = error.kind === 'unauthorized' ? 401 : error.kind === 'rate_limited' ? 429 : 400;
    const message =
      status === 401
        ? 'Sign in to the shop in this browser first, then open the link from your agent again.'
        : error.message;
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .send(authorizationErrorPage(message));
  }
}
