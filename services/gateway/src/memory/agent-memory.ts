import type { MemoryStore } from '@shop/memory';

/** A memory store that can also say where a user's memories live, for the chat's activity record. */
export interface AgentMemory extends MemoryStore {
  namespaceOf(userId: string): string;
}
