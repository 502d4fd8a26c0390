import type { DeciderRunner } from '@shop/commands';
import type { ServiceMetrics } from '@shop/metrics';

/** What the decider runner's aggregate cache holds, to size AGGREGATE_CACHE_MAX_BYTES and _ENTRIES by. */
export function registerAggregateCache(metrics: ServiceMetrics, runner: DeciderRunner): void {
  metrics.gauge(
    'aggregate_cache_bytes',
    'Estimated heap bytes of the folded aggregates the command side keeps (bounded by AGGREGATE_CACHE_MAX_BYTES)',
    [],
    (gauge) => gauge.set(runner.cached.bytes),
  );
  metrics.gauge(
    'aggregate_cache_entries',
    'Folded aggregates the command side keeps (bounded by AGGREGATE_CACHE_MAX_ENTRIES)',
    [],
    (gauge) => gauge.set(runner.cached.entries),
  );
}
