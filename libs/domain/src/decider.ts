/**
 * A pure aggregate: `decide` turns a command and the current state into new events (or
 * throws a DomainError), `evolve` folds one event into the state. No I/O anywhere, so every
 * invariant is tested given-events / when-command / then-events. `initialState` is a function
 * so no caller can share (and mutate) one state object between aggregates.
 */
export interface Decider<C, E extends { type: string; data: unknown }, S> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

export function fold<E extends { type: string; data: unknown }, S>(
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  events: Iterable<E>,
): S {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}

/**
 * The default branch of a decider's switch over its commands: a command added to the union
 * and not handled leaves `command` typed as that command instead of `never`, so it fails to
 * compile. A union of one command narrows only its `type`, so such a decider passes the type.
 */
export function unhandledCommand(command: never): never {
  const type: unknown = typeof command === 'object' ? (command as { type?: unknown }).type : command;
  throw new Error(`unhandled command ${String(type)}`);
}
