import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { loadConfigOrExit, tracesExporter, tracingEnv } from '@shop/config';

export interface Tracing {
  /** Exports what has ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops tracing; the process's last step. */
  shutdown(): Promise<void>;
}

type TracingSdk = typeof import('./start-tracing');

export interface TraceProcessOptions {
  /**
   * The instrumentations that can see anything of this service's work; the configured ones
   * outside it are not installed. Unset: every configured one.
   */
  instrumentations?: readonly string[];
  /**
   * False for a service none of whose own spans has children of its own making: unless an
   * instrumentation is installed, it then runs without async context tracking (see
   * SynchronousContextManager). Default true.
   */
  ownSpansNest?: boolean;
}

/**
 * A service's tracing as its environment configures it, started before the service loads
 * http, pg or ioredis; null when no exporter is configured. The SDK and its instrumentations
 * load only then: a static import would cost every process that appends an event their load
 * time, traced or not. A bad OTEL_* variable stops the process.
 */
export function traceProcess(service: string, options: TraceProcessOptions = {}): Tracing | null {
  const config = loadConfigOrExit(tracingEnv, service);
  if (!tracesExporter(config)) return null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on, see above
  const { startTracing } = require('./start-tracing') as TracingSdk;
  return startTracing(service, config, options);
}

/** Traces this process into `processor` (a test's in-memory exporter) with every instrumentation. */
export async function traceInto(service: string, processor: SpanProcessor): Promise<Tracing> {
  const { installTracing } = await import('./start-tracing');
  return installTracing(service, processor, ['fastify', 'http', 'undici', 'pg', 'ioredis'], true);
}
