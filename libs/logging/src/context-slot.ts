import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The process's one asynchronous context, shared by every slot: each AsyncLocalStorage a process
 * uses costs every promise it makes another step of the async hook, so the correlation id, a
 * request's consistency scope and the trace context ride in one.
 */
const storage = new AsyncLocalStorage<Readonly<Record<symbol, unknown>>>();

/** A value that holds for a function and everything it starts, asynchronously too. */
export class ContextSlot<T> {
  private readonly key: symbol;

  constructor(name: string) {
    this.key = Symbol(name);
  }

  get(): T | undefined {
    return storage.getStore()?.[this.key] as T | undefined;
  }

  /** Runs `fn` with this slot holding `value`, every other slot as it was. */
  run<R>(value: T, fn: () => R): R {
    return storage.run({ ...storage.getStore(), [this.key]: value }, fn);
  }
}
