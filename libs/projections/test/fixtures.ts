import { randomUUID } from 'node:crypto';
import { systemActor } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';

/** Registers `users` users, then renames each `renames` times: (1 + renames) commits per user. */
export async function writeUserHistory(
  store: EventStore,
  users: number,
  renames: number,
  ids: string[] = Array.from({ length: users }, () => randomUUID()),
): Promise<string[]> {
  const meta = () => ({ commandId: randomUUID(), correlationId: 'fixture', actor: systemActor });
  const versions = await Promise.all(
    ids.map(async (id) => {
      const r = await store.append(
        'user',
        id,
        [
          {
            type: 'UserRegistered',
            data: { providerSubject: `sub-${id}`, email: `${id.slice(0, 8)}@example.com` },
          },
        ],
        { ...meta(), expectedSequence: 0 },
      );
      return r.sequence;
    }),
  );
  for (let round = 0; round < renames; round++) {
    await Promise.all(
      ids.map(async (id, i) => {
        const r = await store.append(
          'user',
          id,
          [{ type: 'DisplayNameSet', data: { displayName: `user ${i} v${round}` } }],
          {
            ...meta(),
            expectedSequence: versions[i]!,
          },
        );
        versions[i] = r.sequence;
      }),
    );
  }
  return ids;
}
