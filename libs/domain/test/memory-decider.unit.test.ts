import { describe, it } from 'vitest';
import { MemoryEvent } from '@shop/contracts';
import { MemoryCommand } from '../src/memory/memory-commands';
import { memoryDecider } from '../src/memory/memory-decider';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(memoryDecider);
const remember = (fact: string, namespace = 'preferences'): MemoryCommand => ({
  type: 'RememberPreference',
  fact,
  namespace,
  source: 'chat',
});
const remembered = (fact: string, namespace = 'preferences'): MemoryEvent => ({
  type: 'PreferenceRemembered',
  data: { fact, namespace, source: 'chat' },
});

describe('memory decider', () => {
  it('remembers a fact with its spacing tidied', () => {
    given()
      .when(remember('  I prefer   slim fit '))
      .then([remembered('I prefer slim fit')]);
  });

  it('does not store a fact twice, whatever its case or spacing, within one namespace', () => {
    const history = [remembered('I prefer slim fit')];
    given(...history)
      .when(remember('i prefer SLIM  fit'))
      .then([]);
    given(...history)
      .when(remember('I prefer slim fit', 'style'))
      .then([remembered('I prefer slim fit', 'style')]);
  });

  it('refuses an empty or overlong fact', () => {
    for (const fact of ['   ', 'x'.repeat(501)]) {
      given().when(remember(fact)).thenThrows('VALIDATION_ERROR');
    }
  });
});
