import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { enabledInstrumentations, tracesExporter, type TracingConfig } from '@shop/config';
import { SharedContextManager } from './shared-context-manager';
import { operationalPaths, setInstrumented } from './spans';
import { SynchronousContextManager } from './synchronous-context-manager';
import type { Tracing, TraceProcessOptions } from './trace-process';

/**
 * The instrumentations by the names OTEL_NODE_ENABLED_INSTRUMENTATIONS uses. `fastify` is the
 * services' own request spans (startRequestSpan in @shop/http); with it, http traces only
 * outgoing calls (apify-client's), not incoming requests twice.
 */
const available: Record<string, (enabled: readonly string[]) => Instrumentation[]> = {
  http: (enabled) => [
    new HttpInstrumentation({
      disableIncomingRequestInstrumentation: enabled.includes('fastify'),
      ignoreIncomingRequestHook: (request) => operationalPaths.test(request.url ?? ''),
    }),
  ],
  fastify: () => [],
  undici: () => [new UndiciInstrumentation()],
  pg: () => [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })],
  ioredis: () => [new IORedisInstrumentation({ requireParentSpan: true })],
};

/**
 * Installs the tracer provider, the W3C propagator and the `instrumentations` named, exporting
 * through `processor`. pg and ioredis are traced only inside a request or a message: the pools'
 * background queries would make traces of their own. Async context tracking runs only when
 * something reads the active context after an await: an instrumentation, or spans of the
 * service's own that nest.
 */
export function installTracing(
  serviceName: string,
  processor: SpanProcessor,
  instrumentations: readonly string[],
  ownSpansNest: boolean,
): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [processor],
  });
  provider.register({
    contextManager:
      ownSpansNest || instrumentations.length > 0
        ? new SharedContextManager()
        : new SynchronousContextManager(),
  });
  setInstrumented(instrumentations);
  const uninstall = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: instrumentations.flatMap((name) => available[name]?.(instrumentations) ?? []),
  });
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      uninstall();
      setInstrumented([]);
      await provider.shutdown();
    },
  };
}

/**
 * Starts tracing as the OTEL_* variables say, or returns null when no exporter is configured
 * (tracing is then off: the API's no-op tracer, nothing instrumented). Called before the process
 * loads http, pg or ioredis, so their instrumentations see them loaded.
 */
export function startTracing(
  service: string,
  config: TracingConfig,
  options: TraceProcessOptions = {},
): Tracing | null {
  const exporter = tracesExporter(config);
  if (!exporter) return null;
  const { instrumentations: relevant, ownSpansNest = true } = options;
  return installTracing(
    config.OTEL_SERVICE_NAME ?? service,
    new BatchSpanProcessor(exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter()),
    enabledInstrumentations(config).filter((name) => !relevant || relevant.includes(name)),
    ownSpansNest,
  );
}
