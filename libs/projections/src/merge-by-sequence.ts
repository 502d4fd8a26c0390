import { RawCommit } from '@shop/eventstore';

/**
 * Several readers of disjoint subjects of one stream, each in stream order, as one reader in
 * stream order: what one consumer of all their subjects would deliver, where nats-server 2.9
 * gives a consumer one filter subject.
 */
export async function* mergeBySequence(
  readers: readonly AsyncIterator<RawCommit>[],
): AsyncGenerator<RawCommit> {
  try {
    const heads = await Promise.all(readers.map((reader) => reader.next()));
    for (;;) {
      let least = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i]!;
        if (head.done) continue;
        if (least < 0 || head.value.sequence < (heads[least]!.value as RawCommit).sequence) least = i;
      }
      if (least < 0) return;
      yield heads[least]!.value as RawCommit;
      heads[least] = await readers[least]!.next();
    }
  } finally {
    // Each reader's consumer goes with it.
    await Promise.all(readers.map((reader) => reader.return?.()));
  }
}
