import { z } from 'zod';

/**
 * The command side's memory bounds, shared by every process that runs commands (the gateway and
 * the search service): the folded aggregates kept between commands, all types together.
 */
export const writeSideFields = {
  AGGREGATE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).default(20_000),
  /** Estimated heap bytes; an aggregate alone past it is folded from the stream on each command. */
  AGGREGATE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 2 ** 20),
  /**
   * Commits of one aggregate between two snapshots of its state, so a cold load folds at most
   * this many commits after the latest snapshot; 0 takes none and folds the whole history.
   */
  AGGREGATE_SNAPSHOT_EVERY: z.coerce.number().int().min(0).default(32),
};
