interface OwnedCommand {
  /** The user asking; every command but creation must come from the session's owner. */
  userId: string;
}

export interface CreateSession extends OwnedCommand {
  type: 'CreateSession';
  title: string | null;
}

export interface RenameSession extends OwnedCommand {
  type: 'RenameSession';
  title: string;
  generated: boolean;
}

export interface DeleteSession extends OwnedCommand {
  type: 'DeleteSession';
}

export interface AppendMessage extends OwnedCommand {
  type: 'AppendMessage';
  messageId: string;
  role: 'user' | 'assistant';
  parts: Record<string, unknown>[];
}

export type SessionCommand = CreateSession | RenameSession | DeleteSession | AppendMessage;
