import { describe, expect, it } from 'vitest';
import { SessionEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { DomainError } from '../src/domain-error';
import { SessionCommand } from '../src/session/session-commands';
import { sessionDecider } from '../src/session/session-decider';

const owner = '11111111-1111-4111-8111-111111111111';
const stranger = '22222222-2222-4222-8222-222222222222';
const created: SessionEvent = { type: 'SessionCreated', data: { userId: owner, title: null } };
const when = (command: SessionCommand, ...history: SessionEvent[]) =>
  sessionDecider.decide(command, fold(sessionDecider, history));
const codeOf = (command: SessionCommand, ...history: SessionEvent[]) => {
  try {
    when(command, ...history);
  } catch (error) {
    return (error as DomainError).code;
  }
  return 'accepted';
};

describe('session decider', () => {
  it('creates a session once', () => {
    expect(when({ type: 'CreateSession', userId: owner, title: null })).toEqual([created]);
    expect(codeOf({ type: 'CreateSession', userId: owner, title: null }, created)).toBe('CONFLICT');
  });

  it('lets only the owner rename, delete or append', () => {
    expect(when({ type: 'RenameSession', userId: owner, title: 'Shoes', generated: false }, created)).toEqual(
      [{ type: 'SessionRenamed', data: { title: 'Shoes', generated: false } }],
    );
    for (const command of [
      { type: 'RenameSession', userId: stranger, title: 'x', generated: false },
      { type: 'DeleteSession', userId: stranger },
      { type: 'AppendMessage', userId: stranger, messageId: 'm1', role: 'user', parts: [] },
    ] as SessionCommand[]) {
      expect(codeOf(command, created)).toBe('SessionOwnershipError');
    }
  });

  it('lets a generated title name an untitled session only', () => {
    const generated = { type: 'RenameSession', userId: owner, title: 'Red shoes', generated: true } as const;
    expect(when(generated, created)).toEqual([
      { type: 'SessionRenamed', data: { title: 'Red shoes', generated: true } },
    ]);
    const renamed: SessionEvent = { type: 'SessionRenamed', data: { title: 'Mine', generated: false } };
    expect(when(generated, created, renamed)).toEqual([]);
    const titled: SessionEvent = { type: 'SessionCreated', data: { userId: owner, title: 'Typed' } };
    expect(when(generated, titled)).toEqual([]);
    expect(when({ ...generated, generated: false }, titled)).toEqual([
      { type: 'SessionRenamed', data: { title: 'Red shoes', generated: false } },
    ]);
  });

  it('answers SessionNotFound for a missing or deleted session', () => {
    expect(codeOf({ type: 'DeleteSession', userId: owner })).toBe('SessionNotFound');
    const deleted: SessionEvent = { type: 'SessionDeleted', data: {} };
    expect(
      codeOf({ type: 'RenameSession', userId: owner, title: 'x', generated: false }, created, deleted),
    ).toBe('SessionNotFound');
  });

  it('stores a message once even when the append is retried', () => {
    const parts = [{ type: 'text', text: 'hi' }];
    const appended: SessionEvent = {
      type: 'ChatMessageAppended',
      data: { messageId: 'm1', role: 'user', parts },
    };
    expect(
      when({ type: 'AppendMessage', userId: owner, messageId: 'm1', role: 'user', parts }, created),
    ).toEqual([appended]);
    expect(
      when({ type: 'AppendMessage', userId: owner, messageId: 'm1', role: 'user', parts }, created, appended),
    ).toEqual([]);
  });
});
