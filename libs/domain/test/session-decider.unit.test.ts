import { describe, it } from 'vitest';
import { SessionEvent } from '@shop/contracts';
import { SessionCommand } from '../src/session/session-commands';
import { sessionDecider } from '../src/session/session-decider';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(sessionDecider);
const owner = '11111111-1111-4111-8111-111111111111';
const stranger = '22222222-2222-4222-8222-222222222222';
const created: SessionEvent = { type: 'SessionCreated', data: { userId: owner, title: null } };

describe('session decider', () => {
  it('creates a session once', () => {
    given().when({ type: 'CreateSession', userId: owner, title: null }).then([created]);
    given(created).when({ type: 'CreateSession', userId: owner, title: null }).thenThrows('CONFLICT');
  });

  it('lets only the owner rename, delete or append', () => {
    given(created)
      .when({ type: 'RenameSession', userId: owner, title: 'Shoes', generated: false })
      .then([{ type: 'SessionRenamed', data: { title: 'Shoes', generated: false } }]);
    for (const command of [
      { type: 'RenameSession', userId: stranger, title: 'x', generated: false },
      { type: 'DeleteSession', userId: stranger },
      { type: 'AppendMessage', userId: stranger, messageId: 'm1', role: 'user', parts: [] },
    ] as SessionCommand[]) {
      given(created).when(command).thenThrows('SessionOwnershipError');
    }
  });

  it('lets a generated title name an untitled session only', () => {
    const generated = { type: 'RenameSession', userId: owner, title: 'Red shoes', generated: true } as const;
    given(created)
      .when(generated)
      .then([{ type: 'SessionRenamed', data: { title: 'Red shoes', generated: true } }]);
    const renamed: SessionEvent = { type: 'SessionRenamed', data: { title: 'Mine', generated: false } };
    given(created, renamed).when(generated).then([]);
    const titled: SessionEvent = { type: 'SessionCreated', data: { userId: owner, title: 'Typed' } };
    given(titled).when(generated).then([]);
    given(titled)
      .when({ ...generated, generated: false })
      .then([{ type: 'SessionRenamed', data: { title: 'Red shoes', generated: false } }]);
  });

  it('answers SessionNotFound for a missing or deleted session', () => {
    given().when({ type: 'DeleteSession', userId: owner }).thenThrows('SessionNotFound');
    const deleted: SessionEvent = { type: 'SessionDeleted', data: {} };
    given(created, deleted)
      .when({ type: 'RenameSession', userId: owner, title: 'x', generated: false })
      .thenThrows('SessionNotFound');
  });

  it('stores a message once even when the append is retried', () => {
    const parts = [{ type: 'text', text: 'hi' }];
    const appended: SessionEvent = {
      type: 'ChatMessageAppended',
      data: { messageId: 'm1', role: 'user', parts },
    };
    given(created)
      .when({ type: 'AppendMessage', userId: owner, messageId: 'm1', role: 'user', parts })
      .then([appended]);
    given(created, appended)
      .when({ type: 'AppendMessage', userId: owner, messageId: 'm1', role: 'user', parts })
      .then([]);
  });
});
