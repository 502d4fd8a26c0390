import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { corsOrigins, type GatewayConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { AppModule } from './app.module';
import { CatalogImageAddress } from './catalog-images/catalog-image-address';
import { ChainIndexerHost } from './onchain/chain-indexer-host';
import { installConsistencyScope } from './consistency/consistency-scope';
import { installBodyParsers } from './http/body-parsers';
import { envelopeClientError } from './http/client-error';
import type { GatewayOverrides } from './infrastructure/gateway-overrides';
import { closeConnectionsWhenClosing, installRequestContext } from '@shop/http';
import { installHttpMetrics, ServiceMetrics } from '@shop/metrics';

/** Bodies beyond this are refused before parsing (413 in the envelope). */
const bodyLimitBytes = 1024 * 1024;

export async function createGatewayApp(
  config: GatewayConfig,
  logger: Logger,
  overrides: GatewayOverrides = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: bodyLimitBytes,
    connectionTimeout: config.IDLE_TIMEOUT_MS,
    keepAliveTimeout: config.IDLE_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    // The refresh limit keys on the client address: only the operator's proxies may state it.
    trustProxy: config.TRUST_PROXY,
    clientErrorHandler: envelopeClientError,
  });
  const fastify = adapter.getInstance();
  installRequestContext(fastify, logger);
  // Keep-alive clients and open chat streams would otherwise hold `app.close()` for IDLE_TIMEOUT_MS.
  closeConnectionsWhenClosing(fastify);
  // One registry per app: the adapter's hook and the /metrics route share it.
  const metrics = new ServiceMetrics('gateway');
  installHttpMetrics(fastify, metrics);
  installConsistencyScope(fastify, { secure: config.NODE_ENV === 'production' });

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config, logger, overrides, metrics),
    adapter,
    {
      logger: false,
      bufferLogs: false,
      abortOnError: false,
      // Webhook signatures are computed over the exact bytes received (see installBodyParsers).
      rawBody: true,
    },
  );
  installBodyParsers(app, bodyLimitBytes);
  await app.register(fastifyCookie);
  // Echo exactly an allowed origin; any other origin gets no CORS headers at all.
  const allowedOrigins = corsOrigins(config);
  app.enableCors({
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowedOrigins.has(origin) ? origin : false),
    credentials: true,
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['content-type', 'idempotency-key', 'x-correlation-id'],
    exposedHeaders: [
      'x-session-id',
      'x-correlation-id',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ],
    maxAge: 600,
  });
  return app;
}

/** Listens, then starts the chain indexer when one is configured (the spec's start-up order). */
export async function listenGateway(app: NestFastifyApplication, port: number, host: string): Promise<void> {
  await app.listen(port, host);
  app.get(CatalogImageAddress).listeningOn((app.getHttpServer().address() as { port: number }).port);
  await app.get(ChainIndexerHost).start();
}
