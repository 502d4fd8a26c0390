import { Inject, Injectable } from '@nestjs/common';
import { RecordedEvent, UserEvent } from '@shop/contracts';
import { Reaction } from '@shop/reactions';
import { preferencesNamespace, sizesMemoryText } from '@shop/read-models';
import { MEMORY_STORE } from '../infrastructure/tokens';
import type { AgentMemory } from './agent-memory';

/**
 * With MemWal as the memory store, the sizes of a first onboarding completion are sent there too
 * (the project's own store gets them from the user_memories projection). A failed call is retried
 * by the runner; a retry after a lost acknowledgement can file the sizes twice, which recall
 * tolerates (the same text ranks the same).
 */
@Injectable()
export class MemwalSizesReaction implements Reaction {
  readonly name = 'memwal-sizes';
  readonly aggregate = 'user' as const;
  readonly eventTypes = ['SizesSaved'];

  constructor(@Inject(MEMORY_STORE) private readonly memory: AgentMemory) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<UserEvent>;
    if (event.type !== 'SizesSaved' || !event.data.firstCompletion) return;
    await this.memory.remember(event.aggregateId, sizesMemoryText(event.data), {
      namespace: preferencesNamespace,
      source: 'onboarding',
    });
  }
}
