import { EventEmitter } from 'node:events';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentCorrelationId, withCorrelationId } from '@shop/logging';
import { SharedContextManager } from '../src';

const key = createContextKey('test value');
const withValue = (value: string) => ROOT_CONTEXT.setValue(key, value);
const valueNow = () => context.active().getValue(key);
const tick = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  context.setGlobalContextManager(new SharedContextManager());
});
afterEach(() => {
  context.disable();
});

describe('the trace context in the shared asynchronous context', () => {
  it('holds across awaits and timers for everything the function started, and no longer', async () => {
    const seen: unknown[] = [];
    await context.with(withValue('a'), async () => {
      await tick();
      seen.push(valueNow());
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          seen.push(valueNow());
          resolve();
        }, 1),
      );
    });
    expect(seen).toEqual(['a', 'a']);
    expect(valueNow()).toBeUndefined();
  });

  it('keeps the correlation id it is entered under, and the correlation id keeps it', async () => {
    const seen = await withCorrelationId('req-1', () =>
      context.with(withValue('a'), async () => {
        await tick();
        const inner = await withCorrelationId('req-2', async () => {
          await tick();
          return [currentCorrelationId(), valueNow()];
        });
        return [...inner, currentCorrelationId(), valueNow()];
      }),
    );
    expect(seen).toEqual(['req-2', 'a', 'req-1', 'a']);
    expect(currentCorrelationId()).toBeUndefined();
  });

  it('binds functions and the listeners of an event emitter to a context', async () => {
    const emitter = new EventEmitter();
    const seen: unknown[] = [];
    context.bind(withValue('bound'), emitter);
    emitter.on('event', () => seen.push(valueNow()));
    const bound = context.bind(withValue('fn'), () => valueNow());
    await context.with(withValue('other'), async () => {
      emitter.emit('event');
      seen.push(bound());
    });
    expect(seen).toEqual(['bound', 'fn']);
  });
});
