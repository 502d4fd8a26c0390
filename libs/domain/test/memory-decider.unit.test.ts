import { describe, expect, it } from 'vitest';
import { MemoryEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { DomainError } from '../src/domain-error';
import { MemoryCommand } from '../src/memory/memory-commands';
import { memoryDecider } from '../src/memory/memory-decider';

const when = (command: MemoryCommand, ...history: MemoryEvent[]) =>
  memoryDecider.decide(command, fold(memoryDecider, history));
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
    expect(when(remember('  I prefer   slim fit '))).toEqual([remembered('I prefer slim fit')]);
  });

  it('does not store a fact twice, whatever its case or spacing, within one namespace', () => {
    const history = [remembered('I prefer slim fit')];
    expect(when(remember('i prefer SLIM  fit'), ...history)).toEqual([]);
    expect(when(remember('I prefer slim fit', 'style'), ...history)).toEqual([
      remembered('I prefer slim fit', 'style'),
    ]);
  });

  it('refuses an empty or overlong fact', () => {
    for (const fact of ['   ', 'x'.repeat(501)]) {
      expect(() => when(remember(fact))).toThrow(DomainError);
    }
  });
});
