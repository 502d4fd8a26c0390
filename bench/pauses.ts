import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { MetricSample, sampleValue } from '@shop/metrics';

/**
 * What could stop a command for tens of milliseconds now and then, over one paced window: the
 * gateway's and the projector's garbage-collection pauses (from their
 * nodejs_gc_duration_seconds), and the bench process's own. The bench is the load client and
 * times each command itself, so a pause of its own (its heap holds what the growth phase appended
 * and rebuilt) adds to the latency of every command in flight as if the gateway had stalled.
 */
export interface Pauses {
  /** GC pauses of at least 100 ms, and all GC time in ms, of each process. */
  gateway: { over100Ms: number; gcMs: number };
  projector: { over100Ms: number; gcMs: number };
  bench: { over100Ms: number; gcMs: number; longestGcMs: number; eventLoopDelayMaxMs: number };
}

/** GC pauses of one service between two scrapes of its /metrics. */
export function servicePauses(before: readonly MetricSample[], after: readonly MetricSample[]) {
  const delta = (name: string, labels?: Record<string, string>) =>
    sampleValue(after, name, labels) - sampleValue(before, name, labels);
  // Summed over the kinds (major, minor, incremental, weakcb).
  const count = delta('nodejs_gc_duration_seconds_count');
  const under100 = delta('nodejs_gc_duration_seconds_bucket', { le: '0.1' });
  const seconds = delta('nodejs_gc_duration_seconds_sum');
  return { over100Ms: count - under100, gcMs: Math.round(seconds * 1000) };
}

/** Watches this process's GC and event-loop delay until the returned function is called. */
export function watchOwnPauses(): () => Pauses['bench'] {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let over100Ms = 0;
  let gcMs = 0;
  let longestGcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      longestGcMs = Math.max(longestGcMs, entry.duration);
      if (entry.duration >= 100) over100Ms++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    delay.disable();
    return {
      over100Ms,
      gcMs: Math.round(gcMs),
      longestGcMs: Math.round(longestGcMs),
      eventLoopDelayMaxMs: Math.round(delay.max / 1e6),
    };
  };
}
