import { expect } from 'vitest';
import { Decider, fold } from '../src/decider';
import { DomainError, DomainErrorKind } from '../src/domain-error';

type AnyEvent = { type: string; data: unknown };

/**
 * The one given/when/then of every decider test: `given(...history).when(command)` decides the
 * command against the state the history folds to, then `then(events)` asserts what it records
 * and `thenThrows(code)` what it refuses. `events()` and `state` are there for assertions that
 * look at part of the outcome only.
 */
export function deciderSpec<C, E extends AnyEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(...history: E[]) {
      return {
        get state(): S {
          return fold(decider, history);
        },
        when(command: C) {
          const events = () => decider.decide(command, fold(decider, history));
          return {
            events,
            then(expected: E[]): void {
              expect(events()).toEqual(expected);
            },
            /** Asserts a DomainError with this code (and kind, when given) and returns it. */
            thenThrows(code: string, kind?: DomainErrorKind): DomainError {
              let decided: E[];
              try {
                decided = events();
              } catch (error) {
                expect(error).toBeInstanceOf(DomainError);
                const refusal = error as DomainError;
                expect(refusal.code).toBe(code);
                if (kind) expect(refusal.kind).toBe(kind);
                return refusal;
              }
              throw new Error(`expected ${code}, but the command was accepted: ${JSON.stringify(decided)}`);
            },
          };
        },
      };
    },
  };
}
