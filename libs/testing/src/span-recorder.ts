import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { SharedContextManager } from '@shop/tracing';

export interface SpanRecorder {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The ended span named `name`; a test failure when there is none. */
  span(name: string): ReadableSpan;
  stop(): Promise<void>;
}

/**
 * Traces this test process into memory: a tracer provider with the W3C propagator and the
 * context manager, as a service's tracing has, without instrumenting any library.
 */
export function recordSpans(): SpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register({ contextManager: new SharedContextManager() });
  return {
    spans: () => exporter.getFinishedSpans(),
    span(name) {
      const found = exporter.getFinishedSpans().find((s) => s.name === name);
      if (!found)
        throw new Error(
          `no span ${name}; ended: ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found;
    },
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
