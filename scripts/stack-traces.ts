import { loadConfig, tracesExporter, tracingEnv } from '@shop/config';
import { startTraceCollector, type TraceCollector } from '@shop/tracing';
import type { Env } from './stack-environment';

export interface StackTraces {
  collector: TraceCollector;
  /** What each service is given to export its spans to the collector. */
  env: Env;
}

/**
 * Unless the operator configures tracing (an OTEL_* exporter or endpoint, or
 * OTEL_TRACES_EXPORTER=none), `npm start` keeps the last traces itself: the services export to a
 * collector in this process, on loopback, which joins each request's spans from every service
 * into one timeline at GET /traces. The services run the same code they would with a real
 * collector.
 */
export async function startStackTraces(operator: Env, port?: number): Promise<StackTraces | null> {
  const config = loadConfig(tracingEnv, operator);
  if (tracesExporter(config) || config.OTEL_TRACES_EXPORTER === 'none' || config.OTEL_SDK_DISABLED)
    return null;
  const collector = port
    ? await startTraceCollector({ port })
    : // Another stack on this machine may hold the usual port; the printed address says which one this got.
      await startTraceCollector({ port: 9467 }).catch(() => startTraceCollector({ port: 0 }));
  return {
    collector,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      // A development stack can afford its queries in the timeline (see docs/operations.md, "Traces").
      OTEL_NODE_ENABLED_INSTRUMENTATIONS:
        operator.OTEL_NODE_ENABLED_INSTRUMENTATIONS ?? 'fastify,http,undici,pg,ioredis',
    },
  };
}
