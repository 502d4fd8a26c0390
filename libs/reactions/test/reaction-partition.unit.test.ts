import { describe, expect, it } from 'vitest';
import {
  partitionCountOfConsumer,
  reactionConsumerName,
  reactionPartitions,
} from '../src/reaction-partition';

describe('reaction partitions', () => {
  it('keeps the unsplit name for one partition and names each of several with its count', () => {
    expect(reactionPartitions(1).map((p) => reactionConsumerName('wallet-provisioning', p))).toEqual([
      'reaction_wallet-provisioning',
    ]);
    expect(reactionPartitions(3).map((p) => reactionConsumerName('wallet-provisioning', p))).toEqual([
      'reaction_wallet-provisioning_p0of3',
      'reaction_wallet-provisioning_p1of3',
      'reaction_wallet-provisioning_p2of3',
    ]);
  });

  it("reads a consumer's partition count back, and only for the reaction's own consumers", () => {
    expect(partitionCountOfConsumer('reaction_memwal', 'memwal')).toBe(1);
    expect(partitionCountOfConsumer('reaction_memwal_p3of8', 'memwal')).toBe(8);
    // Another reaction whose name starts with this one's, and a consumer of another kind.
    expect(partitionCountOfConsumer('reaction_memwal_sizes', 'memwal')).toBeNull();
    expect(partitionCountOfConsumer('reaction_memwal_sizes_p0of2', 'memwal')).toBeNull();
    expect(partitionCountOfConsumer('projection_memwal', 'memwal')).toBeNull();
  });
});
