import { describe, expect, it } from 'vitest';
import { partitionOf, RecordedEvent } from '@shop/contracts';
import { fairShare } from '../src/partition-claims';
import { AnyProjection } from '../src/projection';
import { partitionName, projectionUnits } from '../src/projection-partitions';

function recording(name: string, partitioned: boolean) {
  const applied: string[] = [];
  const projection: AnyProjection = {
    name,
    aggregates: ['cart'],
    tables: [],
    partitioned,
    apply: async (_db, events) => {
      applied.push(...events.map((e) => e.aggregateId));
    },
  };
  return { projection, applied };
}

const event = (aggregateId: string) => ({ aggregate: 'cart', aggregateId }) as RecordedEvent;

describe('partitioned projections', () => {
  it('names partitions only when there are several, with the count in the name', () => {
    expect(partitionName('cart_items', 0, 1)).toBe('cart_items');
    expect(partitionName('cart_items', 2, 4)).toBe('cart_items-p2of4');
  });

  it('splits a partitioned projection into one unit per partition, each applying only its aggregates', async () => {
    const made: ReturnType<typeof recording>[] = [];
    const units = projectionUnits(() => {
      const split = recording('cart_items', true);
      made.push(split);
      return [split.projection, recording('chat_sessions', false).projection];
    }, 4);
    expect(units.map((u) => u.name)).toEqual([
      'cart_items-p0of4',
      'cart_items-p1of4',
      'cart_items-p2of4',
      'cart_items-p3of4',
      'chat_sessions',
    ]);
    const ids = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    for (const unit of units.slice(0, 4)) await unit.apply(null as never, ids.map(event));
    // Each partition has its own instance, and together they applied every aggregate once.
    made.forEach(({ applied }, index) => {
      expect(applied).toEqual(ids.filter((id) => partitionOf(id, 4) === index));
    });
    expect(made.flatMap((m) => m.applied).sort()).toEqual([...ids].sort());
  });

  it('keeps every projection whole with one partition', () => {
    const units = projectionUnits(() => [recording('cart_items', true).projection], 1);
    expect(units.map((u) => [u.name, u.partition])).toEqual([['cart_items', undefined]]);
  });
});

describe('the fair share of units', () => {
  it('gives every unit a holder and no member more than its share rounded up', () => {
    for (const units of [1, 5, 17, 20]) {
      for (const members of [1, 2, 3, 7]) {
        const share = fairShare(units, members);
        expect(share * members).toBeGreaterThanOrEqual(units);
        expect((share - 1) * members).toBeLessThan(units);
      }
    }
    expect(fairShare(17, 2)).toBe(9);
    expect(fairShare(17, 0)).toBe(17);
  });
});
