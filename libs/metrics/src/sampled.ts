/**
 * Several gauges read one sample per scrape: the first collect asks the dependency, the rest
 * within `ttlMs` reuse its answer. A failed sample is not kept, so the next scrape asks again.
 */
export function sampled<T>(read: () => Promise<T>, ttlMs = 1000): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at > ttlMs) {
      const value = read();
      const entry = { at: now, value };
      value.catch(() => {
        if (cached === entry) cached = null;
      });
      cached = entry;
    }
    return cached.value;
  };
}
