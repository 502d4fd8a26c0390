import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ContextSlot } from '@shop/logging';

const traceContext = new ContextSlot<Context>('traceContext');

/**
 * The SDK's async context manager (binding functions and event emitters as it does), keeping the
 * active context in the process's shared asynchronous context (ContextSlot) rather than in an
 * AsyncLocalStorage of its own, which would cost every promise of a traced process one more step
 * of the async hook.
 */
export class SharedContextManager extends AsyncLocalStorageContextManager {
  override active(): Context {
    return traceContext.get() ?? ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return traceContext.run(context, () => fn.apply(thisArg, args));
  }
}
