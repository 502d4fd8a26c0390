import {
  context,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type ProxyTracerProvider,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** Probes and scrapes every few seconds would bury the requests in their own spans: never traced. */
export const operationalPaths = /^\/(metrics|health|ready)(\?|$)/;

let cached: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * This library's tracer from the registered provider, asked of it again only when another is
 * registered: the provider builds a key and looks it up on every ask, for every span.
 */
export function tracer(): Tracer {
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer('@shop/tracing') };
  return cached.tracer;
}

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

/** Where a span goes: under `parent` (else the active context), and whether it is made active. */
export interface SpanPlacement {
  parent?: Context;
  /**
   * False when nothing inside reads the active context (no child spans, no instrumented call):
   * entering a context costs every promise made inside it. Default true.
   */
  active?: boolean;
}

/**
 * Runs `work` in a new span placed as `placement` says; a throw marks the span as failed with
 * the error, and the span ends either way. Under a parent that is not sampled no span is made:
 * it could only be one that records nothing, and making it costs every command of the traces
 * a sampler leaves out.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  { parent, active = true }: SpanPlacement = {},
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
  const from = parent ?? context.active();
  const under = trace.getSpan(from);
  if (under && !under.isRecording() && !(under.spanContext().traceFlags & TraceFlags.SAMPLED)) {
    // The trace is not sampled: a child would be a non-recording span too, so `work` gets the
    // parent's (whose end and attributes are no-ops) and whatever it sends on carries that.
    return active && parent ? context.with(parent, () => run(under)) : run(under);
  }
  if (!active) return run(tracer().startSpan(name, options, from));
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
