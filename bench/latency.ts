export interface LatencySummary {
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samplesMs: readonly number[], seconds: number): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    count: sorted.length,
    perSecond: round(sorted.length / seconds),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? 0),
  };
}
