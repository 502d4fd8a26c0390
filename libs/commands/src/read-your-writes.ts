import type { AggregateName } from '@shop/contracts';

/**
 * What the write side is given to wait until its commits are readable: the read side knows
 * which read models read an aggregate and how far each has got (ReadModelPositions).
 */
export interface ReadYourWrites {
  /** Whether any read model reads `aggregate`. */
  reads(aggregate: AggregateName): boolean;
  /** Waits (bounded) until the read models of `aggregate` have applied `sequence`; false when it gave up. */
  waitReadable(aggregate: AggregateName, sequence: number): Promise<boolean>;
}
