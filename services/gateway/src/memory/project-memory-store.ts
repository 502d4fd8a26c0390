import type { CommandBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { Memory, rankMemories, RecallOptions, RememberOptions } from '@shop/memory';
import { newestMemories, preferencesNamespace, ReadModelDatabase } from '@shop/read-models';
import type { AgentMemory } from './agent-memory';
import { RememberPreferenceCommand } from './remember-preference.command';

/** A user's memories that recall ranks; a shopper keeps far fewer, and the newest matter most. */
const RECALL_WINDOW = 500;

/**
 * The default memory store, built from events: remembering appends PreferenceRemembered to the
 * user's memory subject, and recall reads the user_memories projection (which also holds the
 * onboarding sizes) and ranks it with the same word overlap for every caller.
 */
export class ProjectMemoryStore implements AgentMemory {
  constructor(
    private readonly commands: CommandBus,
    private readonly db: Kysely<ReadModelDatabase>,
  ) {}

  namespaceOf(): string {
    return preferencesNamespace;
  }

  async remember(userId: string, fact: string, options: RememberOptions): Promise<void> {
    // Onboarding sizes arrive as SizesSaved events of the user, never through here.
    if (options.source !== 'chat') throw new Error(`cannot remember a fact from "${options.source}"`);
    options.signal?.throwIfAborted();
    await this.commands.execute(new RememberPreferenceCommand(userId, fact, options.namespace));
  }

  async recall(userId: string, query: string, options: RecallOptions): Promise<Memory[]> {
    options.signal?.throwIfAborted();
    const rows = await newestMemories(this.db, userId, RECALL_WINDOW);
    const memories = rows.map((row): Memory => ({
      id: row.memory_id,
      content: row.content,
      namespace: row.namespace,
      source: row.source,
      createdAt: new Date(row.created_at).toISOString(),
    }));
    return rankMemories(query, memories).slice(0, options.limit);
  }
}
