import { describe, expect, it } from 'vitest';
import {
  BENCH_POOL_DURING_TRACING,
  benchDemands,
  benchPoolFor,
  checkConnectionBudget,
  SERVICE_POOLS,
  STACK_CONNECTIONS_BEYOND_POOLS,
  stackConnections,
  TRACING_POOL_SIZE,
} from '../../bench/connection-budget';
import { tracingVariants } from '../../bench/tracing-cost';

/** A stock Postgres with nothing else connected: max_connections 100, 3 kept for superusers. */
const stock = { maxConnections: 100, reserved: 3, inUse: 0 };
/** `npm run bench` as shipped: --concurrency 32, every phase. */
const asShipped = (tracingPools = { gateway: TRACING_POOL_SIZE, projector: TRACING_POOL_SIZE }) =>
  benchDemands({
    benchPool: benchPoolFor(32),
    tracing: { stacks: tracingVariants.length, pools: tracingPools, benchPool: BENCH_POOL_DURING_TRACING },
  });

describe("the bench's Postgres connection budget", () => {
  it('counts a stack as its two pools and the connections its locks hold', () => {
    expect(stackConnections({ gateway: 5, projector: 5 })).toBe(10 + STACK_CONNECTIONS_BEYOND_POOLS);
    expect(stackConnections(SERVICE_POOLS)).toBe(30 + STACK_CONNECTIONS_BEYOND_POOLS);
    const [main, tracing] = asShipped();
    expect(main!.holders.map((h) => h.connections)).toEqual([36, stackConnections(SERVICE_POOLS)]);
    expect(tracing!.holders.map((h) => h.connections)).toEqual([
      BENCH_POOL_DURING_TRACING,
      5 * stackConnections({ gateway: TRACING_POOL_SIZE, projector: TRACING_POOL_SIZE }),
    ]);
  });

  it('fits every phase of the bench as shipped in a stock Postgres', () => {
    expect(() => checkConnectionBudget(stock, asShipped())).not.toThrow();
  });

  it("refuses, naming the phase and what it is short, the tracing phase's five stacks on the services' own pools", () => {
    // 2 + 5 x (20 + 10 + 7) = 187 against 97: what made `sorry, too many clients already` minutes in.
    expect(() => checkConnectionBudget(stock, asShipped(SERVICE_POOLS))).toThrow(
      /^the tracing phase needs 187 Postgres connections at its peak \(the bench's own pool 2, 5 stacks of 37 .*\), but the server has room for 97 \(max_connections 100, 3 reserved, 0 in use by others\): 90 short\. Raise max_connections/,
    );
  });

  it('counts what others hold already, and names every phase that does not fit', () => {
    expect(() => checkConnectionBudget({ ...stock, inUse: 40 }, asShipped())).toThrow(
      /^the main stack phase needs 73 .* room for 57 .*40 in use by others\): 16 short; the tracing phase needs 87 .*: 30 short\./,
    );
    expect(() =>
      checkConnectionBudget(
        { ...stock, inUse: 40 },
        benchDemands({ benchPool: benchPoolFor(8), tracing: null }),
      ),
    ).not.toThrow();
  });
});
