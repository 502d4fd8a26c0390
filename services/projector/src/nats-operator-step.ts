import type { SharedConfig } from '@shop/config';
import { connectNats, provisionEventStream } from '@shop/eventstore';
import { moveLegacyConsumers } from '@shop/reactions';

/**
 * The operator step on NATS, under the operator's user (no service user may do any of it): the
 * event stream and the snapshot bucket as infra/ defines them, and consumers of an earlier
 * version moved to their owners' names. `npm run migrate` runs it, and compose's one-shot
 * `operator` service before the others start.
 */
export async function natsOperatorStep(config: SharedConfig, write: (line: string) => void): Promise<void> {
  const nc = await connectNats(config, 'operator-step');
  try {
    const provisioned = await provisionEventStream(nc, {
      stream: config.EVENT_STREAM,
      subjectPrefix: config.EVENT_SUBJECT_PREFIX,
      replicas: config.EVENT_STREAM_REPLICAS,
    });
    write(`stream ${config.EVENT_STREAM}: ${provisioned.stream}; snapshot bucket: ${provisioned.bucket}`);
    for (const difference of provisioned.differences) write(`  differed: ${difference}`);
    for (const move of await moveLegacyConsumers(await nc.jetstreamManager(), config.EVENT_STREAM)) {
      write(
        move.to
          ? `consumer ${move.from} moved to ${move.to} (from sequence ${move.startsAt})`
          : `consumer ${move.from} removed (its projection re-creates it from its checkpoint)`,
      );
    }
  } finally {
    await nc.close();
  }
}
