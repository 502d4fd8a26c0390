/**
 * A pure aggregate: `decide` turns a command and the current state into new events (or
 * throws a DomainError), `evolve` folds one event into the state. No I/O anywhere, so every
 * invariant is tested given-events / when-command / then-events.
 */
export interface Decider<C, E extends { type: string; data: unknown }, S> {
  readonly initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

export function fold<E extends { type: string; data: unknown }, S>(
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  events: Iterable<E>,
): S {
  let state = decider.initialState;
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
