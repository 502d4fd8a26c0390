import { type ForbiddenSettings, settingDifferences } from './setting-differences';
import { ConsumerConfig } from 'nats';

/**
 * Settings a pull consumer of a runner may not have: a deliver subject (it would push the
 * stream's messages onto a core subject), headers only (events without their data), a replay at
 * the original pace, a rate limit or server-side back-off (a stalled runner), sampling.
 */
const forbidden: ForbiddenSettings = {
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
export const consumerDifferences = (actual: ConsumerConfig, wanted: Partial<ConsumerConfig>): string[] =>
  settingDifferences(actual, wanted, forbidden);
