import { describe, expect, it } from 'vitest';
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
