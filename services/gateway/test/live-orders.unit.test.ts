import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProviderClient } from '@shop/provider';
import type { Redis } from '@shop/redis';
import { settlement } from '@shop/testing';
import { LiveOrders } from '../src/orders/live-orders';

afterEach(() => {
  vi.useRealTimers();
});

/** A provider that never answers, so only the list's own wait can end the call. */
const hungProvider = { getOrder: () => new Promise<never>(() => undefined) } as unknown as ProviderClient;
const emptyCache = { get: async () => null, set: async () => 'OK' } as unknown as Redis;

describe('LiveOrders for lists', () => {
  it('gives up on a hung provider after its own 1.5 s wait, not the provider client deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const live = new LiveOrders(hungProvider, emptyCache);

    const outcome = settlement(live.cachedOrNull('provider-order-1'));
    await vi.advanceTimersByTimeAsync(1499);
    expect(outcome.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);

    expect(outcome.settled).toBe(true);
    await expect(outcome.promise).resolves.toBeNull();
  });
});
