import { describe, expect, it } from 'vitest';
import { partitionOf } from '@shop/contracts';
import type { PositionTracker } from '../src/position-tracker';
import { CommitWait, ReadModelPositions } from '../src/read-model-positions';

/** A tracker whose waits answer `readable` at once, recording which projections each waited for. */
function trackerAnswering(readable: boolean) {
  const waits: { projections: readonly string[]; sequence: number }[] = [];
  const tracker = {
    waitFor: (projections: readonly string[], sequence: number) => {
      waits.push({ projections, sequence });
      return Promise.resolve(projections.length === 0 || readable);
    },
  } as unknown as PositionTracker;
  return { tracker, waits };
}

const readers = [
  { name: 'cart_items', aggregates: ['cart' as const] },
  { name: 'orders', aggregates: ['order' as const, 'cart' as const] },
];

describe('a command waiting for its own commit', () => {
  it('reports the wait of an aggregate the read models read, readable or timed out', async () => {
    for (const readable of [true, false]) {
      const { tracker, waits } = trackerAnswering(readable);
      const positions = new ReadModelPositions(tracker, readers, 1000);
      const reported: CommitWait[] = [];
      positions.onCommitWait((wait) => reported.push(wait));

      expect(await positions.waitForCommit('cart', 42)).toBe(readable);

      expect(waits).toEqual([{ projections: ['cart_items', 'orders'], sequence: 42 }]);
      expect(reported).toEqual([{ aggregate: 'cart', sequence: 42, seconds: expect.any(Number), readable }]);
    }
  });

  it('reports nothing for an aggregate no read model reads, nor after the listener stopped', async () => {
    const { tracker } = trackerAnswering(false);
    const positions = new ReadModelPositions(tracker, readers, 1000);
    const reported: CommitWait[] = [];
    const stop = positions.onCommitWait((wait) => reported.push(wait));

    expect(await positions.waitForCommit('user', 7)).toBe(true);
    stop();
    await positions.waitForCommit('cart', 8);

    expect(reported).toEqual([]);
  });

  it('reports no wait that is not for a commit just appended', async () => {
    const { tracker } = trackerAnswering(false);
    const positions = new ReadModelPositions(tracker, readers, 1000);
    const reported: CommitWait[] = [];
    positions.onCommitWait((wait) => reported.push(wait));

    expect(await positions.waitReadable('cart', 9)).toBe(false);

    expect(reported).toEqual([]);
  });
});

describe('waits with partitioned read models', () => {
  const partitioned = [
    { name: 'cart_items', aggregates: ['cart' as const], partitioned: true },
    { name: 'chat_sessions', aggregates: ['cart' as const] },
  ];
  const id = 'user-7';
  const own = partitionOf(id, 4);

  it("waits for the write's own partition and the whole unpartitioned readers, and reports the partition", async () => {
    const { tracker, waits } = trackerAnswering(false);
    const positions = new ReadModelPositions(tracker, partitioned, 1000, 4);
    const reported: CommitWait[] = [];
    positions.onCommitWait((wait) => reported.push(wait));

    await positions.waitForCommit('cart', 42, id);
    await positions.waitReadable('cart', 43, id);

    expect(waits).toEqual([
      { projections: [`cart_items-p${own}of4`, 'chat_sessions'], sequence: 42 },
      { projections: [`cart_items-p${own}of4`, 'chat_sessions'], sequence: 43 },
    ]);
    expect(reported).toEqual([
      { aggregate: 'cart', sequence: 42, partition: own, seconds: expect.any(Number), readable: false },
    ]);
    expect(positions.keyOf('cart', id)).toBe(`cart/${own}`);
  });

  it('waits for every partition when the id is unknown, and for a token key of one partition only its own', async () => {
    const { tracker, waits } = trackerAnswering(true);
    const positions = new ReadModelPositions(tracker, partitioned, 1000, 4);

    await positions.waitForCommit('cart', 5);
    await positions.waitUntilReadable(new Map([['cart/2', 6]]), 100);
    // A partition of another partitioning (a token older than a change of N): every partition.
    await positions.waitUntilReadable(new Map([['cart/9', 7]]), 100);

    const all = [
      'cart_items-p0of4',
      'cart_items-p1of4',
      'cart_items-p2of4',
      'cart_items-p3of4',
      'chat_sessions',
    ];
    expect(waits).toEqual([
      { projections: all, sequence: 5 },
      { projections: ['cart_items-p2of4', 'chat_sessions'], sequence: 6 },
      { projections: all, sequence: 7 },
    ]);
  });

  it('keeps the whole names and the aggregate key with one partition', async () => {
    const { tracker, waits } = trackerAnswering(true);
    const positions = new ReadModelPositions(tracker, partitioned, 1000);
    await positions.waitForCommit('cart', 5, id);
    expect(waits).toEqual([{ projections: ['cart_items', 'chat_sessions'], sequence: 5 }]);
    expect(positions.keyOf('cart', id)).toBe('cart');
  });
});
