import { describe, expect, it } from 'vitest';
import { systemActor } from '@shop/contracts';
import { Decider, defineAggregate, DomainError } from '@shop/domain';
import { DeciderRunner } from '../src/decider-runner';
import { ConcurrencyExhaustedError } from '../src/errors';
import { InMemoryStore } from './in-memory-store';

type Named =
  | { type: 'DisplayNameSet'; data: { displayName: string } }
  | { type: 'UserRegistered'; data: { providerSubject: string; email: string | null } };
type Command = { type: 'Register' } | { type: 'Rename'; name: string };
interface State {
  registered: boolean;
  renames: number;
}

/** A small decider with one invariant: at most two renames. */
const decider: Decider<Command, Named, State> = {
  initialState: () => ({ registered: false, renames: 0 }),
  decide(command, state) {
    if (command.type === 'Register') {
      return state.registered
        ? []
        : [{ type: 'UserRegistered', data: { providerSubject: 's', email: null } }];
    }
    if (!state.registered) throw new DomainError('not_found', 'NOT_REGISTERED', 'register first');
    if (state.renames >= 2) throw new DomainError('invalid', 'TOO_MANY_RENAMES', 'only two renames');
    return [{ type: 'DisplayNameSet', data: { displayName: command.name } }];
  },
  evolve(state, event) {
    return event.type === 'UserRegistered'
      ? { ...state, registered: true }
      : { ...state, renames: state.renames + 1 };
  },
};

const user = defineAggregate('user', decider, { snapshotVersion: 1 });

const meta = (commandId: string) => ({ commandId, correlationId: 'c', actor: systemActor });
const id = '00000000-0000-4000-8000-000000000001';

describe('DeciderRunner', () => {
  it('decides on the loaded state and appends at its version', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store);
    const first = await runner.run(user, id, { type: 'Register' }, meta('c1'));
    expect(first).toMatchObject({ appended: true, version: 1, state: { registered: true } });
    const second = await runner.run(user, id, { type: 'Rename', name: 'a' }, meta('c2'));
    expect(second.version).toBe(2);
    expect(second.events.map((e) => e.type)).toEqual(['DisplayNameSet']);
  });

  it('serves later commands from its cache without reloading the aggregate', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store);
    await runner.run(user, id, { type: 'Register' }, meta('c1'));
    await runner.run(user, id, { type: 'Rename', name: 'a' }, meta('c2'));
    await runner.run(user, id, { type: 'Rename', name: 'b' }, meta('c3'));
    expect(store.loads).toBe(1);
  });

  it('reloads and decides again when another writer got there first, keeping the invariant', async () => {
    const store = new InMemoryStore();
    const mine = new DeciderRunner(store);
    const theirs = new DeciderRunner(store);
    await mine.run(user, id, { type: 'Register' }, meta('c1'));
    await mine.run(user, id, { type: 'Rename', name: 'a' }, meta('c2'));
    // The other process renames in between: our cached state says one rename, the stream says two.
    store.beforeAppend = async () => {
      await theirs.run(user, id, { type: 'Rename', name: 'theirs' }, meta('t1'));
    };
    await expect(mine.run(user, id, { type: 'Rename', name: 'b' }, meta('c3'))).rejects.toMatchObject({
      code: 'TOO_MANY_RENAMES',
    });
    expect((await store.load('user', id)).events.filter((e) => e.type === 'DisplayNameSet')).toHaveLength(2);
  });

  it('confirms a refusal made on a cached state against the stream before answering', async () => {
    const store = new InMemoryStore();
    const stale = new DeciderRunner(store);
    const other = new DeciderRunner(store);
    // `stale` caches the user as unregistered...
    await expect(stale.run(user, id, { type: 'Rename', name: 'x' }, meta('c0'))).rejects.toMatchObject({
      code: 'NOT_REGISTERED',
    });
    // ...then another process registers it.
    await other.run(user, id, { type: 'Register' }, meta('c1'));
    const outcome = await stale.run(user, id, { type: 'Rename', name: 'x' }, meta('c2'));
    expect(outcome.appended).toBe(true);
  });

  it('answers a repeated command id with the first outcome, appending nothing', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store);
    await runner.run(user, id, { type: 'Register' }, meta('c1'));
    const first = await runner.run(user, id, { type: 'Rename', name: 'a' }, meta('same'));
    const again = await new DeciderRunner(store).run(user, id, { type: 'Rename', name: 'a' }, meta('same'));
    expect(again.appended).toBe(false);
    expect(again.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    expect(store.messages).toHaveLength(2);
  });

  it('returns no events for a no-op decision', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store);
    await runner.run(user, id, { type: 'Register' }, meta('c1'));
    const again = await runner.run(user, id, { type: 'Register' }, meta('c2'));
    expect(again).toMatchObject({ appended: false, events: [], version: 1 });
  });

  it('gives up after the allowed number of conflicts', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store, { maxAttempts: 3 });
    const rival = new DeciderRunner(store, { maxAttempts: 50 });
    let n = 0;
    const interfere = async () => {
      await rival.run(user, `${id.slice(0, -1)}2`, { type: 'Register' }, meta(`r${n++}`));
      store.messages.push({
        subject: store.subject('user', id),
        sequence: store.messages.length + 1,
        events: [],
      });
      store.beforeAppend = interfere;
    };
    store.beforeAppend = interfere;
    await expect(runner.run(user, id, { type: 'Register' }, meta('c1'))).rejects.toBeInstanceOf(
      ConcurrencyExhaustedError,
    );
  });

  it('keeps no aggregate without commits that a state read found, so such reads never push live ones out', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store, { cache: { maxEntries: 2, maxBytes: 1024 * 1024 } });
    await runner.run(user, id, { type: 'Register' }, meta('c1'));
    const strangers = Array.from(
      { length: 10 },
      (_, i) => `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
    );
    for (const stranger of strangers) {
      expect(await runner.state(user, stranger)).toEqual({ state: decider.initialState(), version: 0 });
    }
    expect(runner.cached.entries).toBe(1);
    const loads = store.loads;
    await runner.run(user, id, { type: 'Rename', name: 'a' }, meta('c2'));
    expect(store.loads).toBe(loads);
    // A stranger that registers later is folded from the stream, not from an empty state kept earlier.
    await runner.run(user, strangers[0]!, { type: 'Register' }, meta('c3'));
    expect(await runner.state(user, strangers[0]!)).toMatchObject({
      state: { registered: true },
      version: 3,
    });
  });

  it('keeps the aggregates it caches within its byte bound across many aggregates, still deciding right', async () => {
    const store = new InMemoryStore();
    const runner = new DeciderRunner(store, { cache: { maxEntries: 100_000, maxBytes: 32 * 1024 } });
    const ids = Array.from(
      { length: 500 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    for (const [i, each] of ids.entries()) {
      await runner.run(user, each, { type: 'Register' }, meta(`register-${i}`));
      await runner.run(user, each, { type: 'Rename', name: `name ${i}` }, meta(`rename-${i}`));
    }
    expect(runner.cached.bytes).toBeLessThanOrEqual(32 * 1024);
    expect(runner.cached.entries).toBeLessThan(ids.length);
    // An evicted aggregate is folded again from the stream: its invariant and its retries hold.
    await runner.run(user, ids[0]!, { type: 'Rename', name: 'second' }, meta('second-0'));
    await expect(
      runner.run(user, ids[0]!, { type: 'Rename', name: 'third' }, meta('third-0')),
    ).rejects.toMatchObject({
      code: 'TOO_MANY_RENAMES',
    });
    const retried = await runner.run(user, ids[1]!, { type: 'Rename', name: 'name 1' }, meta('rename-1'));
    expect(retried.appended).toBe(false);
  });
});
