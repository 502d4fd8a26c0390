import { z } from 'zod';
import { booleanFlag, url } from './env-types';

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
  /** Instrumentations left out, as the Node auto-instrumentation names them: `http`, `undici`, `pg`, `ioredis`. */
  OTEL_NODE_DISABLED_INSTRUMENTATIONS: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((name) => name.trim()) : [])),
});

export type TracingConfig = z.output<typeof tracingEnv>;

/**
 * Tracing is off unless an exporter is named or an OTLP endpoint is given: a process nobody
 * collects traces from pays nothing for them.
 */
export function tracesExporter(config: TracingConfig): 'otlp' | 'console' | null {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return null;
  if (config.OTEL_TRACES_EXPORTER) return config.OTEL_TRACES_EXPORTER;
  return config.OTEL_EXPORTER_OTLP_ENDPOINT || config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
}
