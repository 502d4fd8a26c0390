import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { SearchConfig } from '@shop/config';
import { closeConnectionsWhenClosing, installRequestContext } from '@shop/http';
import { installHttpMetrics, ServiceMetrics } from '@shop/metrics';
import type { Logger } from '@shop/logging';
import { AppModule } from './app.module';
import { toErrorResponse } from './http/error-response';
import { SearchNatsServer } from './infrastructure/search-nats-server';

/** Bodies beyond this are refused before parsing (413 in the envelope): a verify body is tiny. */
const bodyLimitBytes = 64 * 1024;
/** Fastify's default (100) would turn a 200-character txHash, which the spec allows, into a 414. */
const maxParamLength = 256;

export interface SearchAppOptions {
  /** How long NATS requests in hand may take to answer once shutdown begins. */
  rpcGracePeriodMs?: number;
}

/** The HTTP API and the NATS transport in one Nest application; `listen` and `startAllMicroservices` start them. */
export async function createSearchApp(
  config: SearchConfig,
  logger: Logger,
  options: SearchAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: bodyLimitBytes,
    routerOptions: { maxParamLength },
    trustProxy: config.TRUST_PROXY,
    forceCloseConnections: 'idle',
    // The router's own refusals (bad URL encoding, over-long parameter) never reach Nest's filters.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const response = toErrorResponse(error);
      reply.code(response.status).send(response.body);
    },
  });
  installRequestContext(adapter.getInstance(), logger);
  // Keep-alive clients would otherwise hold `app.close()` for Fastify's keep-alive timeout (72 s).
  closeConnectionsWhenClosing(adapter.getInstance());
  // One registry per app: the adapter's hook and the /metrics route share it.
  const metrics = new ServiceMetrics('search');
  installHttpMetrics(adapter.getInstance(), metrics);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config, logger, metrics),
    adapter,
    // A provider that fails (a stream that differs from its definition) fails the start with its
    // error, instead of Nest aborting the process with nothing said.
    { logger: false, abortOnError: false },
  );
  app.connectMicroservice({
    strategy: new SearchNatsServer(config, options.rpcGracePeriodMs ?? 5_000),
  });
  return app;
}

/** Starts both transports; the address actually bound (PORT may be 0) is the app's. */
export async function startSearchService(
  config: SearchConfig,
  logger: Logger,
  options: SearchAppOptions = {},
): Promise<{ app: NestFastifyApplication; url: string }> {
  const app = await createSearchApp(config, logger, options);
  await app.startAllMicroservices();
  await app.listen(config.PORT, config.HOST);
  const { port } = app.getHttpServer().address() as { port: number };
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return { app, url: `http://${host}:${port}` };
}
