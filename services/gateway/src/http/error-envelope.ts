import { HttpException } from '@nestjs/common';
import { z, ZodError } from 'zod';
import { DomainError } from '@shop/domain';
import { apiSchema, describeZodError } from '@shop/http';
import { ConcurrencyExhaustedError } from '@shop/commands';
import { DataKeyDestroyedError, EventStoreUnavailableError } from '@shop/eventstore';
import { isTransientError } from '@shop/projections';
import { statusOfDomainErrorKind } from '@shop/service-kit';
import type { ErrorResponse as ServiceErrorResponse } from '@shop/service-kit';

export const errorEnvelopeSchema = apiSchema(
  'Error',
  z.object({ error: z.string().describe('human-readable message'), code: z.string() }),
);
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export type ErrorResponse = ServiceErrorResponse<ErrorEnvelope>;

const codeOfStatus: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'INSUFFICIENT_FUNDS',
  429: 'RATE_LIMIT_EXCEEDED',
  502: 'UPSTREAM_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** The one place any error becomes the spec's `{error, code}` envelope and a status. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ZodError) {
    return {
      status: 400,
      body: { error: describeZodError(error), code: 'VALIDATION_ERROR' },
      unexpected: false,
    };
  }
  if (error instanceof DomainError) {
    return {
      status: statusOfDomainErrorKind[error.kind],
      body: { error: error.message, code: error.code },
      unexpected: false,
      headers: error.headers,
    };
  }
  if (error instanceof EventStoreUnavailableError) {
    return {
      status: 503,
      body: { error: 'The service is temporarily unavailable; retry shortly', code: 'SERVICE_UNAVAILABLE' },
      unexpected: false,
      headers: { 'retry-after': '1' },
    };
  }
  // An erased subject takes no new personal data: a closed account's leftover session, say.
  if (error instanceof DataKeyDestroyedError) {
    return {
      status: 403,
      body: { error: 'This account or chat session was erased', code: 'ACCOUNT_CLOSED' },
      unexpected: false,
    };
  }
  if (error instanceof ConcurrencyExhaustedError) {
    return {
      status: 409,
      body: { error: 'The resource is being changed concurrently; retry the request', code: 'CONFLICT' },
      unexpected: false,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const message = status === 404 ? 'Route not found' : error.message;
    return {
      status,
      body: {
        error: message,
        code: codeOfStatus[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST'),
      },
      unexpected: status >= 500,
    };
  }
  const fastify = error as { code?: string; statusCode?: number; message?: string };
  if (
    typeof fastify?.code === 'string' &&
    fastify.code.startsWith('FST_') &&
    fastify.statusCode &&
    fastify.statusCode < 500
  ) {
    const message =
      fastify.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/i.test(fastify.message ?? '')
        ? 'Malformed JSON body'
        : (fastify.message ?? 'Bad request');
    return {
      status: fastify.statusCode,
      body: { error: message, code: codeOfStatus[fastify.statusCode] ?? 'BAD_REQUEST' },
      unexpected: false,
    };
  }
  if (fastify?.statusCode === 400 && error instanceof SyntaxError) {
    return { status: 400, body: { error: 'Malformed JSON body', code: 'BAD_REQUEST' }, unexpected: false };
  }
  // The database (or another dependency) is restarting or unreachable: the same answer as NATS down.
  if (isTransientError(error)) {
    return {
      status: 503,
      body: { error: 'The service is temporarily unavailable; retry shortly', code: 'SERVICE_UNAVAILABLE' },
      unexpected: false,
      headers: { 'retry-after': '1' },
    };
  }
  return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' }, unexpected: true };
}
