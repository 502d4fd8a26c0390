import { HttpException } from '@nestjs/common';
import { ZodError } from 'zod';
import { ChainError, ChainInputError, ChainTransportError } from '@shop/chain';
import { DomainError } from '@shop/domain';
import { ConcurrencyExhaustedError } from '@shop/commands';
import { EventStoreUnavailableError } from '@shop/eventstore';
import { describeZodError } from '@shop/http';
import { LockUnavailableError } from '@shop/redis';
import { ScraperError } from '@shop/scraper';
import { statusOfDomainErrorKind } from '@shop/service-kit';
import type { ErrorResponse as ServiceErrorResponse } from '@shop/service-kit';
import { Envelope } from './envelope';
import { OutcomeError } from './outcome-error';

export type ErrorResponse = ServiceErrorResponse<Envelope<unknown> & { message: string }>;

/** Status strings of generic failures: the HTTP status names. */
const statusNames: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

const nameOf = (httpStatus: number) =>
  statusNames[httpStatus] ?? (httpStatus >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');

function failure(
  httpStatus: number,
  status: string,
  message: string,
  extra: { data?: unknown; headers?: Record<string, string>; unexpected?: boolean } = {},
): ErrorResponse {
  return {
    status: httpStatus,
    body: { data: extra.data ?? null, status, code: httpStatus, message },
    ...(extra.headers ? { headers: extra.headers } : {}),
    unexpected: extra.unexpected ?? false,
  };
}

function scraperFailure(error: ScraperError): ErrorResponse {
  switch (error.kind) {
    case 'auth':
      // The runner refuses on its own (no status code) only when no token is configured.
      return error.details.statusCode === undefined
        ? failure(
            503,
            'SCRAPER_NOT_CONFIGURED',
            'Realtime search is unavailable: the scraping platform token (APIFY_API_TOKEN) is missing',
          )
        : failure(502, 'SCRAPER_AUTH_FAILED', `The scraping platform refused the token: ${error.message}`);
    case 'upstream':
      return failure(502, 'SCRAPE_FAILED', error.message);
    case 'timeout':
      return failure(504, 'SCRAPE_TIMEOUT', error.message);
  }
}

/** Fastify's own refusals (body parsing, size, media type) before a route ran. */
function fastifyFailure(error: unknown): ErrorResponse | null {
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown } | null;
  if (typeof e?.code !== 'string' || !e.code.startsWith('FST_')) return null;
  if (typeof e.statusCode !== 'number' || e.statusCode >= 500) return null;
  const message = /JSON/i.test(`${e.code} ${String(e.message)}`) ? 'Malformed JSON body' : String(e.message);
  return failure(e.statusCode, nameOf(e.statusCode), message);
}

/** The one place any error becomes the envelope, for HTTP responses and NATS replies alike. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ZodError) return failure(400, 'BAD_REQUEST', describeZodError(error));
  if (error instanceof OutcomeError) {
    return failure(statusOfDomainErrorKind[error.kind], error.code, error.message, { data: error.data });
  }
  if (error instanceof DomainError) {
    return failure(statusOfDomainErrorKind[error.kind], error.code, error.message, {
      ...(error.headers ? { headers: error.headers } : {}),
    });
  }
  if (error instanceof ScraperError) return scraperFailure(error);
  if (error instanceof ChainInputError) return failure(400, 'BAD_REQUEST', error.message);
  if (error instanceof ChainTransportError) {
    return failure(
      503,
      'CHAIN_UNAVAILABLE',
      'The chain RPC could not be reached; nothing was recorded, retry shortly',
      {
        headers: { 'retry-after': '5' },
      },
    );
  }
  if (error instanceof ChainError)
    return failure(502, 'CHAIN_ERROR', `The chain RPC failed: ${error.message}`);
  if (error instanceof LockUnavailableError || error instanceof EventStoreUnavailableError) {
    return failure(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly', {
      headers: { 'retry-after': '1' },
    });
  }
  if (error instanceof ConcurrencyExhaustedError) {
    return failure(409, 'CONFLICT', 'The resource is being changed concurrently; retry the request');
  }
  if (error instanceof HttpException) {
    const httpStatus = error.getStatus();
    return failure(httpStatus, nameOf(httpStatus), error.message, { unexpected: httpStatus >= 500 });
  }
  return (
    fastifyFailure(error) ??
    failure(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', { unexpected: true })
  );
}
