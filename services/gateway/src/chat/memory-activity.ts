import type { Memory } from '@shop/memory';

/** The stream's data part name for memory activity (an app convention shared with the reference UI). */
export const MEMORY_ACTIVITY_PART = 'data-memwal-activity';
/** One id per message, so the client replaces the loading record with the outcome. */
export const MEMORY_ACTIVITY_ID = 'memwal-recall';

/** The convention also has `disabled`, for an app without a memory store; this gateway always has one. */
export type MemoryActivityStatus = 'loading' | 'success' | 'empty' | 'error';

/**
 * What the client shows about the recall before a turn. `source` is the literal the convention's
 * parsers require, whichever store answered; `namespace` tells the stores apart.
 */
export interface MemoryActivity {
  source: 'memwal';
  status: MemoryActivityStatus;
  message: string;
  namespace: string;
  query: string;
  memories: { blobId: string; text: string; distance: number | null }[];
  injectedIntoPrompt: boolean;
}

export interface MemoryActivityPart {
  type: typeof MEMORY_ACTIVITY_PART;
  id: typeof MEMORY_ACTIVITY_ID;
  data: MemoryActivity;
}

const plural = (count: number) => (count === 1 ? 'preference' : 'preferences');

export function memoryActivityPart(
  base: { namespace: string; query: string },
  outcome: { status: 'loading' } | { status: 'error' } | { status: 'recalled'; memories: readonly Memory[] },
): MemoryActivityPart {
  const data = (
    status: MemoryActivityStatus,
    message: string,
    memories: readonly Memory[] = [],
  ): MemoryActivity => ({
    source: 'memwal',
    status,
    message,
    ...base,
    memories: memories.map((memory) => ({
      blobId: memory.id,
      text: memory.content,
      // Stores score relevance in [0, 1]; the convention speaks of distance, lower is closer.
      distance: memory.score === undefined ? null : 1 - memory.score,
    })),
    injectedIntoPrompt: memories.length > 0,
  });
  const record =
    outcome.status === 'loading'
      ? data('loading', 'Looking up your saved preferences')
      : outcome.status === 'error'
        ? data('error', 'Saved preferences are unavailable right now; answering without them')
        : outcome.memories.length === 0
          ? data('empty', 'No saved preferences yet')
          : data(
              'success',
              `Using ${outcome.memories.length} saved ${plural(outcome.memories.length)}`,
              outcome.memories,
            );
  return { type: MEMORY_ACTIVITY_PART, id: MEMORY_ACTIVITY_ID, data: record };
}
