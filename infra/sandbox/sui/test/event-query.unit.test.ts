import type { SuiEvent } from '@mysten/sui/client';
import { describe, expect, it } from 'vitest';
import { MAX_EVENTS_PER_PAGE, queryEvents } from '../src/event-query';

const PKG = `0x${'a'.repeat(64)}`;
const log: SuiEvent[] = Array.from({ length: 60 }, (_, i) => ({
  id: { txDigest: `tx${Math.floor(i / 2)}`, eventSeq: String(i % 2) },
  packageId: PKG,
  transactionModule: i % 3 === 0 ? 'payment' : 'cart',
  sender: `0x${(i % 2 ? 'b' : 'c').repeat(64)}`,
  type: `${PKG}::${i % 3 === 0 ? 'payment' : 'cart'}::E${i}`,
  parsedJson: { i },
  bcs: '',
  bcsEncoding: 'base64',
  timestampMs: null,
}));
const indexes = (page: { data: SuiEvent[] }) =>
  page.data.map((event) => (event.parsedJson as { i: number }).i);

describe('event query paging', () => {
  it('caps a page at the node’s limit and treats 0 or larger as the cap', () => {
    expect(queryEvents(log, { All: [] }, null, 0, false).data).toHaveLength(MAX_EVENTS_PER_PAGE);
    expect(queryEvents(log, { All: [] }, null, 500, false).data).toHaveLength(MAX_EVENTS_PER_PAGE);
  });

  it('walks the whole stream in both directions without gaps or repeats', () => {
    for (const descending of [false, true]) {
      const seen: number[] = [];
      let cursor: unknown = null;
      for (let guard = 0; guard < 100; guard += 1) {
        const page = queryEvents(
          log,
          { MoveModule: { package: PKG, module: 'cart' } },
          cursor,
          7,
          descending,
        );
        seen.push(...indexes(page));
        cursor = page.nextCursor;
        if (!page.hasNextPage) break;
      }
      const expected = log.map((_, i) => i).filter((i) => i % 3 !== 0);
      expect(seen).toEqual(descending ? expected.reverse() : expected);
    }
  });

  it('reports no next page when the last match ends the page exactly', () => {
    const page = queryEvents(log, { Sender: `0x${'b'.repeat(64)}` }, null, 30, false);
    expect(page.data).toHaveLength(30);
    expect(page.hasNextPage).toBe(false);
  });

  it('refuses malformed filters and cursors', () => {
    expect(() => queryEvents(log, null, null, 1, false)).toThrow(/event filter/);
    expect(() => queryEvents(log, { MoveModule: { package: 1 } }, null, 1, false)).toThrow(/package, module/);
    expect(() => queryEvents(log, { All: [] }, { txDigest: 'tx1' }, 1, false)).toThrow(/cursor/);
  });
});
