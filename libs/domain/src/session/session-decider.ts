import { SessionEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';
import {
  AppendMessage,
  CreateSession,
  DeleteSession,
  RenameSession,
  SessionCommand,
} from './session-commands';
import { initialSessionState, SessionState } from './session-state';

export const sessionNotFound = () => new DomainError('not_found', 'SessionNotFound', 'No such chat session');
export const sessionOwnership = () =>
  new DomainError('forbidden', 'SessionOwnershipError', 'This chat session belongs to another user');

function createSession(command: CreateSession, state: SessionState): SessionEvent[] {
  if (state.exists) throw new DomainError('conflict', 'CONFLICT', 'This chat session already exists');
  return [{ type: 'SessionCreated', data: { userId: command.userId, title: command.title } }];
}

function mustBeOwnedBy(userId: string, state: SessionState): void {
  if (!state.exists || state.deleted) throw sessionNotFound();
  if (state.userId !== userId) throw sessionOwnership();
}

function renameSession(command: RenameSession, state: SessionState): SessionEvent[] {
  mustBeOwnedBy(command.userId, state);
  // A generated title names an untitled session; it never replaces a title, e.g. one the
  // user typed while the title was being generated.
  if (command.generated && state.title !== null) return [];
  return [{ type: 'SessionRenamed', data: { title: command.title, generated: command.generated } }];
}

function deleteSession(command: DeleteSession, state: SessionState): SessionEvent[] {
  mustBeOwnedBy(command.userId, state);
  return [{ type: 'SessionDeleted', data: {} }];
}

function appendMessage(command: AppendMessage, state: SessionState): SessionEvent[] {
  mustBeOwnedBy(command.userId, state);
  // A retried append of the same message is stored once.
  if (state.messageIds.has(command.messageId)) return [];
  return [
    {
      type: 'ChatMessageAppended',
      data: { messageId: command.messageId, role: command.role, parts: command.parts },
    },
  ];
}

/** A chat session on `session.<sessionId>`: only its owner may change it; deleted is final. */
export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState: initialSessionState,

  decide(command, state) {
    switch (command.type) {
      case 'CreateSession':
        return createSession(command, state);
      case 'RenameSession':
        return renameSession(command, state);
      case 'DeleteSession':
        return deleteSession(command, state);
      case 'AppendMessage':
        return appendMessage(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'SessionCreated':
        return { ...state, exists: true, userId: event.data.userId, title: event.data.title };
      case 'SessionRenamed':
        return { ...state, title: event.data.title };
      case 'SessionDeleted':
        return { ...state, deleted: true };
      case 'ChatMessageAppended':
        return { ...state, messageIds: new Set(state.messageIds).add(event.data.messageId) };
    }
  },
};
