import {
  context,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from '@opentelemetry/api';

export const tracer = () => trace.getTracer('@shop/tracing');

/** The instrumentations this process runs, by their OTEL_NODE_ENABLED_INSTRUMENTATIONS names. */
let installed: readonly string[] = [];

/** Said by whoever installs the instrumentations (and again, empty, when they are removed). */
export function setInstrumented(names: readonly string[]): void {
  installed = names;
}

/** Whether this process traces with the instrumentation `name`. */
export function isInstrumented(name: string): boolean {
  return installed.includes(name);
}

/**
 * A span whose work is only queries needs to be the active one only when queries are traced:
 * making a context active switches on async context tracking, which every promise of the
 * process then pays for (the projector's only spans are such).
 */
export function queriesReadActiveSpan(): boolean {
  return isInstrumented('pg') || isInstrumented('ioredis');
}

/**
 * Runs `work` in a new span (under `parent`, else the active context) that is the active one
 * while it runs, unless `activate` is false (nothing inside reads the active context); a throw
 * marks the span as failed with the error, and the span ends either way.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent?: Context,
  activate = true,
): Promise<T> {
  const run = async (span: Span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: describe(error) });
      throw error;
    } finally {
      span.end();
    }
  };
  if (!activate) return run(tracer().startSpan(name, options, parent ?? context.active()));
  return parent
    ? tracer().startActiveSpan(name, options, parent, run)
    : tracer().startActiveSpan(name, options, run);
}

/** Notes what happened (a retry, a parking, a timeout) on the span in progress, with its reason. */
export function traceEvent(name: string, attributes: Attributes = {}): void {
  trace.getActiveSpan()?.addEvent(name, attributes);
}

export function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
