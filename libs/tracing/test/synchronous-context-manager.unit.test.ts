import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { SynchronousContextManager } from '../src/synchronous-context-manager';
import { installTracing } from '../src/start-tracing';

const key = createContextKey('test');

describe('the synchronous context manager', () => {
  it('holds a context while a function runs, and the previous one after', () => {
    const manager = new SynchronousContextManager();
    const outer = ROOT_CONTEXT.setValue(key, 'outer');
    const inner = ROOT_CONTEXT.setValue(key, 'inner');
    const seen = manager.with(outer, () => [
      manager.active().getValue(key),
      manager.with(inner, () => manager.active().getValue(key)),
      manager.active().getValue(key),
    ]);
    expect(seen).toEqual(['outer', 'inner', 'outer']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('gives the previous context back when the function throws, and binds functions to a context', () => {
    const manager = new SynchronousContextManager();
    const bound = ROOT_CONTEXT.setValue(key, 'bound');
    expect(() =>
      manager.with(bound, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(manager.active()).toBe(ROOT_CONTEXT);
    const read = manager.bind(bound, () => manager.active().getValue(key));
    expect(read()).toBe('bound');
  });
});

describe("a process's context manager", () => {
  const activeAfterAwait = async () =>
    context.with(ROOT_CONTEXT.setValue(key, 'request'), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return context.active().getValue(key);
    });

  it('tracks context across awaits when its own spans nest or an instrumentation is installed', async () => {
    const tracing = installTracing('t', new SimpleSpanProcessor(new InMemorySpanExporter()), [], true);
    try {
      expect(await activeAfterAwait()).toBe('request');
    } finally {
      await tracing.shutdown();
      context.disable();
    }
  });

  it('does not, and so costs its promises nothing, when neither is so', async () => {
    const tracing = installTracing('t', new SimpleSpanProcessor(new InMemorySpanExporter()), [], false);
    try {
      expect(await activeAfterAwait()).toBeUndefined();
    } finally {
      await tracing.shutdown();
      context.disable();
    }
  });
});
