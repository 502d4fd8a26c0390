import { DeliverPolicy, JetStreamManager } from 'nats';

/** The process whose NATS user owns the reactions' consumers (their runners run in the gateway). */
export const reactionConsumerOwner = 'gateway';

export interface LegacyConsumerMove {
  from: string;
  /** The new name, or null for a projection's consumer (its runner re-creates it from its checkpoint). */
  to: string | null;
  /** Where the new-named consumer starts: after the old one's ack floor. */
  startsAt?: number;
}

/**
 * The operator step's part of renaming consumers to carry their owner: a reaction's consumer
 * from before (`reaction_<name>[_p<i>of<N>]`) gets its successor under the gateway's prefix,
 * starting after the old one's ack floor with the old settings (messages acknowledged but past
 * the floor come again, as repeats, none is skipped), and is then deleted; a projection's old
 * consumer (`projection_<name>`) is just deleted, since a projection runner always re-creates
 * its consumer after its own checkpoint. Run with every old process stopped: one still running
 * would re-create its old consumer.
 */
export async function moveLegacyConsumers(
  jsm: JetStreamManager,
  stream: string,
): Promise<LegacyConsumerMove[]> {
  const moves: LegacyConsumerMove[] = [];
  const legacy = [];
  for await (const info of jsm.consumers.list(stream)) {
    if (/^(reaction|projection)_/.test(info.name)) legacy.push(info);
  }
  for (const info of legacy) {
    if (info.name.startsWith('projection_')) {
      await jsm.consumers.delete(stream, info.name);
      moves.push({ from: info.name, to: null });
      continue;
    }
    const to = `${reactionConsumerOwner}_${info.name}`;
    const startsAt = info.ack_floor.stream_seq + 1;
    const exists = await jsm.consumers.info(stream, to).then(
      () => true,
      () => false,
    );
    if (!exists) {
      const {
        name: _name,
        durable_name: _durable,
        opt_start_seq: _start,
        opt_start_time: _time,
        ...config
      } = info.config;
      await jsm.consumers.add(stream, {
        ...config,
        durable_name: to,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: startsAt,
      });
    }
    await jsm.consumers.delete(stream, info.name);
    moves.push({ from: info.name, to, startsAt });
  }
  return moves;
}
