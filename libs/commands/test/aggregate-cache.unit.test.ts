import { describe, expect, it } from 'vitest';
import { AggregateCache, CachedAggregate } from '../src/aggregate-cache';

interface State {
  notes: string[];
}

/** An aggregate whose folded state holds `notes` strings of `length` characters. */
function aggregate(notes: number, length: number, commands = 1): CachedAggregate<State> {
  return {
    state: { notes: Array.from({ length: notes }, (_, i) => `${i}`.padEnd(length, 'x')) },
    version: notes,
    commands: new Map(Array.from({ length: commands }, (_, i) => [`command-${i}`.padEnd(36, '0'), i + 1])),
    sinceSnapshot: 0,
    commits: notes,
  };
}

describe('AggregateCache', () => {
  it('holds no more than its byte bound when filled far past it, evicting the least recently used', () => {
    const cache = new AggregateCache<State>({ maxEntries: 100_000, maxBytes: 256 * 1024 });
    for (let i = 0; i < 5_000; i++) cache.set(`shop.cart.${i}`, aggregate(10, 100));
    expect(cache.bytes).toBeLessThanOrEqual(256 * 1024);
    expect(cache.size).toBeGreaterThan(10);
    expect(cache.size).toBeLessThan(5_000);
    expect(cache.get('shop.cart.4999')).toBeDefined();
    expect(cache.get('shop.cart.0')).toBeUndefined();
  });

  it('holds no more than its entry bound however small the aggregates', () => {
    const cache = new AggregateCache<State>({ maxEntries: 50, maxBytes: 1024 ** 3 });
    for (let i = 0; i < 1_000; i++) cache.set(`shop.user.${i}`, aggregate(0, 0));
    expect(cache.size).toBe(50);
  });

  it('counts the command ids an aggregate remembers, which grow with its history', () => {
    const cache = new AggregateCache<State>({ maxEntries: 100, maxBytes: 1024 ** 3 });
    cache.set('shop.cart.few', aggregate(1, 10, 1));
    const few = cache.bytes;
    cache.set('shop.cart.few', aggregate(1, 10, 10_000));
    expect(cache.bytes).toBeGreaterThan(few + 10_000 * 36);
  });

  it('re-measures an aggregate replaced under the same subject instead of adding it twice', () => {
    const cache = new AggregateCache<State>({ maxEntries: 100, maxBytes: 1024 ** 3 });
    for (let i = 0; i < 100; i++) cache.set('shop.session.1', aggregate(100, 100));
    const once = new AggregateCache<State>({ maxEntries: 100, maxBytes: 1024 ** 3 });
    once.set('shop.session.1', aggregate(100, 100));
    expect(cache.bytes).toBe(once.bytes);
    cache.delete('shop.session.1');
    expect(cache.bytes).toBe(0);
  });

  it('does not keep an aggregate larger than its whole byte bound, and drops none for it', () => {
    const cache = new AggregateCache<State>({ maxEntries: 100, maxBytes: 64 * 1024 });
    cache.set('shop.cart.small', aggregate(1, 10));
    cache.set('shop.cart.huge', aggregate(1_000, 1_000));
    expect(cache.get('shop.cart.huge')).toBeUndefined();
    expect(cache.get('shop.cart.small')).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(64 * 1024);
  });
});
