import { MetricSample, parsePrometheusText, sampleValue } from '@shop/metrics';

export async function scrape(url: string): Promise<MetricSample[]> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`${url}/metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/**
 * The q-quantile of what a histogram recorded between two scrapes, as Prometheus's
 * histogram_quantile computes it: linear interpolation inside the bucket holding the rank.
 */
export function histogramQuantile(
  before: readonly MetricSample[],
  after: readonly MetricSample[],
  name: string,
  labels: Record<string, string>,
  q: number,
): number {
  const buckets = after
    .filter((s) => s.name === `${name}_bucket` && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => s.labels.le!)
    .filter((le, i, all) => all.indexOf(le) === i)
    .map((le) => ({
      le: le === '+Inf' ? Infinity : Number(le),
      count:
        sampleValue(after, `${name}_bucket`, { ...labels, le }) -
        sampleValue(before, `${name}_bucket`, { ...labels, le }),
    }))
    .sort((a, b) => a.le - b.le);
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return 0;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return lower;
      return lower + ((bucket.le - lower) * (rank - below)) / Math.max(1, bucket.count - below);
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

/** CPU seconds a process spent between two scrapes of its /metrics. */
export function cpuSeconds(before: readonly MetricSample[], after: readonly MetricSample[]): number {
  return sampleValue(after, 'process_cpu_seconds_total') - sampleValue(before, 'process_cpu_seconds_total');
}
