import type { AggregateName } from '@shop/contracts';
import type { Decider } from './decider';

/**
 * An aggregate as the write side runs it: the decider that owns its rules and the name its
 * commits are stored under. An instance's id is the last token of its subject,
 * `<prefix>.<name>.<hash bits>.<id>` (see subjectFor), for every aggregate alike.
 */
export interface Aggregate<C, E extends { type: string; data: unknown }, S> {
  readonly name: AggregateName;
  readonly decider: Decider<C, E, S>;
  /**
   * The version of the state's shape and of `evolve`, which a snapshot of the state is stored
   * under. Bump it whenever either changes: a snapshot of another version is ignored and the
   * state folded from the stream, so a snapshot never stands in for what this build would fold.
   */
  readonly snapshotVersion: number;
}

/** Pairs a decider with its aggregate's name, once, so no caller can pair them wrongly. */
export function defineAggregate<C, E extends { type: string; data: unknown }, S>(
  name: AggregateName,
  decider: Decider<C, E, S>,
  versions: { snapshotVersion: number },
): Aggregate<C, E, S> {
  return { name, decider, snapshotVersion: versions.snapshotVersion };
}
