import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * A context that holds only while a function runs synchronously, for a process whose spans never
 * nest across an await: Node's async context tracking (the SDK's default manager) costs every
 * promise of the process a hook, and the SDK switches it on with its first export.
 */
export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function keeps its own `this`
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
