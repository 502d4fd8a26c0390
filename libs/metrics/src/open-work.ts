import { ServiceMetrics } from './service-metrics';

export interface OpenWork {
  count: number;
  /** When the longest-open item was last touched; null when nothing is open. */
  oldest: Date | null;
}

/**
 * `money_open{process}` and `money_open_oldest_seconds{process}`: how many items a money process
 * (a deposit being credited, a verified payment awaiting its confirmation) has not brought to a
 * final state, and for how long the oldest has waited. Read from the read model at scrape time.
 */
export function registerOpenWork(
  metrics: ServiceMetrics,
  process: string,
  read: () => Promise<OpenWork>,
): void {
  let last: Promise<OpenWork> | null = null;
  // One query serves both gauges of a scrape.
  const current = () => (last ??= read().finally(() => setTimeout(() => (last = null), 0)));
  metrics.gauge(
    'money_open',
    'Items of a money process not yet in a final state',
    ['process'],
    async (gauge) => {
      gauge.set({ process }, (await current()).count);
    },
  );
  metrics.gauge(
    'money_open_oldest_seconds',
    'Age of the oldest item of a money process not yet in a final state (0 when none)',
    ['process'],
    async (gauge) => {
      const { oldest } = await current();
      gauge.set({ process }, oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
    },
  );
}
