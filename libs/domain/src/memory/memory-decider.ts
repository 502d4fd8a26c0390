import { MemoryEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';
import { MemoryCommand, RememberPreference } from './memory-commands';
import { initialMemoryState, memoryKey, MemoryState } from './memory-state';

export const MAX_FACT_LENGTH = 500;

function rememberPreference(command: RememberPreference, state: MemoryState): MemoryEvent[] {
  const fact = command.fact.replace(/\s+/g, ' ').trim();
  if (fact.length === 0 || fact.length > MAX_FACT_LENGTH) {
    throw new DomainError(
      'invalid',
      'VALIDATION_ERROR',
      `A preference must be 1-${MAX_FACT_LENGTH} characters`,
    );
  }
  if (state.remembered.has(memoryKey(command.namespace, fact))) return [];
  return [
    { type: 'PreferenceRemembered', data: { fact, namespace: command.namespace, source: command.source } },
  ];
}

/**
 * A user's remembered preferences on `memory.<userId>`: the subject is the user's own, so no
 * user can write another's memory. A fact already remembered is not stored twice.
 */
export const memoryDecider: Decider<MemoryCommand, MemoryEvent, MemoryState> = {
  initialState: initialMemoryState,

  decide(command, state) {
    switch (command.type) {
      case 'RememberPreference':
        return rememberPreference(command, state);
      default:
        return unhandledCommand(command.type);
    }
  },

  evolve(state, event) {
    return {
      remembered: new Set(state.remembered).add(memoryKey(event.data.namespace, event.data.fact)),
    };
  },
};
