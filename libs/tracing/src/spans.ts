import {
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from '@opentelemetry/api';

export const tracer = () => trace.getTracer('@shop/tracing');

/**
 * Runs `work` in a new span (under `parent`, else the active context) that is the active one
 * while it runs; a throw marks the span as failed with the error, and the span ends either way.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent?: Context,
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
