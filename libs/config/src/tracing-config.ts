import { z } from 'zod';
import { booleanFlag, url } from './env-types';

const nameList = z.string().transform((v) =>
  v
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

/**
 * The standard OpenTelemetry variables a process reads to decide whether it traces at all; the
 * exporter reads the rest of them (headers, timeouts, batch sizes) itself.
 */
export const tracingEnv = z.object({
  OTEL_SDK_DISABLED: booleanFlag(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /**
   * The instrumentations to run, as the Node auto-instrumentation names them: `fastify` (the
   * services' request spans), `http`, `undici`, `pg`, `ioredis`. A span per query costs about as
   * much again as the rest of tracing (the bench's tracing phase), so the queries are traced only
   * when named (`npm start` names them).
   */
  OTEL_NODE_ENABLED_INSTRUMENTATIONS: nameList.default(['fastify', 'http', 'undici']),
  /** Instrumentations left out of those. */
  OTEL_NODE_DISABLED_INSTRUMENTATIONS: nameList.default([]),
});

export type TracingConfig = z.output<typeof tracingEnv>;

/** The instrumentations a traced process runs. */
export function enabledInstrumentations(config: TracingConfig): string[] {
  return config.OTEL_NODE_ENABLED_INSTRUMENTATIONS.filter(
    (name) => !config.OTEL_NODE_DISABLED_INSTRUMENTATIONS.includes(name),
  );
}

/**
 * Tracing is off unless an exporter is named or an OTLP endpoint is given: a process nobody
 * collects traces from pays nothing for them.
 */
export function tracesExporter(config: TracingConfig): 'otlp' | 'console' | null {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return null;
  if (config.OTEL_TRACES_EXPORTER) return config.OTEL_TRACES_EXPORTER;
  return config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
}
