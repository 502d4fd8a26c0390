/** One thing remembered about a user, as a store hands it back. */
export interface Memory {
  id: string;
  content: string;
  /** The label it was filed under, or for MemWal the relayer namespace searched. */
  namespace: string;
  /** Who or what recorded it, e.g. "onboarding" or "chat"; "memwal" for MemWal hits. */
  source: string;
  /** ISO 8601; null where the store does not keep it (MemWal returns none). */
  createdAt: string | null;
  /** Relevance to the recall query in [0, 1], higher is closer; set by recall. */
  score?: number;
}

export interface RememberOptions {
  namespace: string;
  source: string;
  signal?: AbortSignal;
}

export interface RecallOptions {
  /** Most memories to return. */
  limit: number;
  signal?: AbortSignal;
}

/**
 * Where the chat agent keeps a user's preferences: the project's own event-sourced store, or the external
 * MemWal service. Both isolate users from each other; recall returns the most relevant memories first.
 */
export interface MemoryStore {
  remember(userId: string, fact: string, options: RememberOptions): Promise<void>;
  recall(userId: string, query: string, options: RecallOptions): Promise<Memory[]>;
}
