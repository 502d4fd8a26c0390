import { describe, expect, it } from 'vitest';
import { idlePauseMs } from '../src/idle-pause';

describe('idlePauseMs', () => {
  it('waits one poll interval after the first empty poll and doubles with each further one', () => {
    expect([1, 2, 3, 4].map((n) => idlePauseMs(500, n))).toEqual([500, 1000, 2000, 4000]);
  });

  it('never waits more than 8 intervals, however long the chain stays quiet', () => {
    for (const emptyPolls of [4, 5, 10, 1000]) expect(idlePauseMs(500, emptyPolls)).toBe(4000);
  });
});
