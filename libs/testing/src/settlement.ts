export interface Settlement<T> {
  /** The call's value, or what it threw. */
  readonly promise: Promise<T | unknown>;
  /** Whether the call has ended yet, readable without waiting for it. */
  readonly settled: boolean;
}

/** Watches a call so a test can assert it is still waiting, then that it ended, on a clock the test moves. */
export function settlement<T>(call: Promise<T>): Settlement<T> {
  let settled = false;
  const promise = call.then(
    (value) => value,
    (error: unknown) => error,
  );
  void promise.finally(() => {
    settled = true;
  });
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}
