/**
 * Runs tasks for one key one at a time in this process. An on-chain cart change spans a
 * decision, a chain call and an append; holding the user's key across all three keeps this
 * process's requests from racing one another (the contract settles races between processes).
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task);
    const settled = next.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }
}
