import { RouteConfig } from '@nestjs/platform-fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { errorCodes, type FastifyRequest, type RawServerDefault } from 'fastify';

/**
 * Marks a route that takes its body as the exact bytes received, whatever the content type:
 * a signed delivery is verified over those bytes, and one no parser could read is still a
 * delivery. The handler reads them from `rawBody`.
 */
export const RawBodyRoute = (): MethodDecorator => RouteConfig({ rawBody: true });

/** A raw-body route's body as text: empty when none came. */
export const rawTextOf = (request: FastifyRequest): string => {
  const raw = request.body;
  return Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
};

const takesRawBody = (request: FastifyRequest): boolean =>
  (request.routeOptions.config as { rawBody?: unknown }).rawBody === true;

/**
 * The gateway's body parsers, all within one body limit. Every route but a raw-body one reads
 * JSON as Fastify does (malformed: 400), text as a string, and refuses any other media type
 * (415); a raw-body route gets the bytes of any body. Registered before the app starts, so
 * Nest adds no defaults of its own.
 */
export function installBodyParsers(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const json = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (request, body, done) => {
    if (takesRawBody(request)) done(null, body);
    else json(request, body.toString('utf8'), done);
  });
  app.useBodyParser<RawServerDefault>('text/plain', { bodyLimit }, (request, body, done) => {
    done(null, takesRawBody(request) ? body : body.toString('utf8'));
  });
  app.useBodyParser<RawServerDefault>('*', { bodyLimit }, (request, body, done) => {
    if (takesRawBody(request)) done(null, body);
    else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined);
  });
}
