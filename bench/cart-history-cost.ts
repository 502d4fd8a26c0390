import { randomUUID } from 'node:crypto';
import { AggregateCache } from '@shop/commands';
import { CartEvent } from '@shop/contracts';
import { CartState, cartDecider } from '@shop/domain';
import { buildServices } from './build-services';
import { benchProduct } from './users';

/**
 * `npm run bench:cart-history -- [--adds N]`: what the gateway does to a cart's state per command
 * (decide, evolve the events, keep the result in the aggregate cache, which estimates its size),
 * on carts with 100, 1,000 and 10,000 items added and removed before. Flat is expected: a cart's
 * state holds every item id it ever had, and a command must not cost more the longer that is.
 * Builds the libraries first (the Dockerfile's build), as `npm run bench` does.
 */
const args = process.argv.slice(2);
const at = args.indexOf('--adds');
const adds = at >= 0 ? Number(args[at + 1]) : 2000;
const histories = [100, 1_000, 10_000];

function command(state: CartState, type: 'add' | 'remove', itemId: string): CartEvent[] {
  return type === 'add'
    ? cartDecider.decide({ type: 'AddItem', itemId, product: benchProduct() }, state)
    : cartDecider.decide({ type: 'RemoveItem', itemId, reason: 'removed' }, state);
}

/** An add and a removal on `state`, each kept in the cache as the runner keeps it: µs per command. */
function measure(start: CartState, count: number): number {
  const cache = new AggregateCache<CartState>({ maxEntries: 10, maxBytes: 1 << 30 });
  const commands = new Map<string, number>();
  let state = start;
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const itemId = randomUUID();
    for (const type of ['add', 'remove'] as const) {
      for (const event of command(state, type, itemId)) state = cartDecider.evolve(state, event);
      cache.set('cart', { state, version: n, commands, sinceSnapshot: 0, commits: n });
    }
  }
  return ((performance.now() - started) * 1000) / (2 * count);
}

function main(): void {
  buildServices(['commands']);
  const rows: string[] = [];
  for (const history of histories) {
    let state = cartDecider.initialState();
    for (let n = 0; n < history; n++) {
      const itemId = randomUUID();
      for (const type of ['add', 'remove'] as const)
        for (const event of command(state, type, itemId)) state = cartDecider.evolve(state, event);
    }
    measure(state, Math.min(adds, 200));
    rows.push(`| ${history.toLocaleString('en')} | ${measure(state, adds).toFixed(1)} |`);
  }
  process.stdout.write(
    `| items added and removed before | µs per command (decide, evolve, cache) |\n| ---: | ---: |\n${rows.join('\n')}\n`,
  );
}

main();
