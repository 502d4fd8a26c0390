export interface SessionState {
  exists: boolean;
  deleted: boolean;
  userId: string | null;
  title: string | null;
  messageIds: Set<string>;
}

export const initialSessionState = (): SessionState => ({
  exists: false,
  deleted: false,
  userId: null,
  title: null,
  messageIds: new Set(),
});
