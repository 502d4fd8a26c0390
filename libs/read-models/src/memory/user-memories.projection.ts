import { Insertable } from 'kysely';
import { BulkTable, RowTarget, writeRows } from '@shop/projections';
import { MemoryEvent, RecordedEvent, UserEvent } from '@shop/contracts';
import { applyAroundClosures, foldAroundClosures } from '../account-closure';
import { ReadModelProjection } from '../read-model-database';
import { sizesMemoryText } from './sizes-memory';
import { UserMemoriesTable } from './user-memories-table';

export const preferencesNamespace = 'preferences';

function memoriesOf(recorded: RecordedEvent): Insertable<UserMemoriesTable>[] {
  const event = recorded as RecordedEvent<UserEvent | MemoryEvent>;
  // Sizes reach the memory store once, when onboarding first completes (the spec's step-3 rule).
  if (event.type === 'SizesSaved' && event.data.firstCompletion) {
    return [
      {
        memory_id: `${event.id}:sizes`,
        user_id: event.aggregateId,
        namespace: preferencesNamespace,
        content: sizesMemoryText(event.data),
        source: 'onboarding',
        created_at: event.occurredAt,
      },
    ];
  }
  if (event.type === 'PreferenceRemembered') {
    return [
      {
        memory_id: event.id,
        user_id: event.aggregateId,
        namespace: event.data.namespace,
        content: event.data.fact,
        source: event.data.source,
        created_at: event.occurredAt,
      },
    ];
  }
  return [];
}

const memoryRows: RowTarget = { table: 'user_memories', key: ['memory_id'], onConflict: 'keep' };

/**
 * The default memory store, built from events: insert-only, one multi-row statement per batch;
 * a closed account's memories are deleted with it.
 */
export const userMemoriesProjection: ReadModelProjection = {
  name: 'user_memories',
  aggregates: ['user', 'memory'],
  tables: ['user_memories'],
  // Two aggregates but one id: a user's memory aggregate has the user's id (a row's user_id is
  // its aggregate id), so a closure and the memories it erases fall in one partition.
  partitioned: true,
  apply: (db, events, mode = 'batch') =>
    applyAroundClosures(
      events,
      (some) => writeRows(db, memoryRows, some.flatMap(memoriesOf), mode),
      async (userId) => {
        await db.deleteFrom('user_memories').where('user_id', '=', userId).execute();
      },
    ),
  bulk() {
    const memories = new BulkTable<Insertable<UserMemoriesTable>>('user_memories', 'user_id');
    return {
      add: (events) =>
        foldAroundClosures(
          events,
          (some) => {
            for (const row of some.flatMap(memoriesOf)) {
              if (!memories.has(row.memory_id)) memories.set(row.memory_id, row);
            }
          },
          (userId) => memories.deleteOwnedBy(userId),
        ),
      tables: () => [memories],
    };
  },
};
