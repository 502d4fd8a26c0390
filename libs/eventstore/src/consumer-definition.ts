import { ConsumerConfig } from 'nats';

/**
 * Settings a pull consumer of a runner may not have: a deliver subject (it would push the
 * stream's messages onto a core subject), headers only (events without their data), a replay at
 * the original pace, a rate limit or server-side back-off (a stalled runner), sampling.
 */
const forbidden: Record<string, (value: unknown) => boolean> = {
  deliver_subject: (value) => typeof value === 'string' && value !== '',
  deliver_group: (value) => typeof value === 'string' && value !== '',
  headers_only: (value) => value === true,
  replay_policy: (value) => value !== undefined && value !== 'instant',
  rate_limit_bps: (value) => typeof value === 'number' && value > 0,
  backoff: (value) => Array.isArray(value) && value.length > 0,
  sample_freq: (value) => typeof value === 'string' && value !== '',
};

/**
 * Each setting of a durable consumer that is not what its runner creates it with, or that a
 * runner's consumer may not have, as `name: actual (wanted)`. The server leaves false, zero and
 * empty settings out of what it reports.
 */
export function consumerDifferences(actual: ConsumerConfig, wanted: Partial<ConsumerConfig>): string[] {
  const reported = actual as unknown as Record<string, unknown>;
  const differences: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    const current = reported[key] ?? (value === false || value === 0 ? value : undefined);
    if (JSON.stringify(current) !== JSON.stringify(value))
      differences.push(`${key}: ${JSON.stringify(current)} (wanted ${JSON.stringify(value)})`);
  }
  for (const [key, isForbidden] of Object.entries(forbidden)) {
    if (isForbidden(reported[key]))
      differences.push(`${key}: ${JSON.stringify(reported[key])} (wanted none)`);
  }
  return differences;
}
