import { NatsConnection, NatsError, StreamConfig, StreamInfo } from 'nats';
import { SUBJECT_LAYOUT } from '@shop/contracts';
import {
  eventStreamConfig,
  snapshotBucketConfig,
  snapshotBucketOf,
  StreamDefinitionParams,
  streamDifferences,
} from './stream-definition';

/** What the operator step did to the stream and the snapshot bucket, for its output. */
export interface ProvisionOutcome {
  stream: 'created' | 'updated' | 'up to date';
  bucket: 'created' | 'recreated' | 'up to date';
  /** The settings that differed before (the stream's, then the bucket's). */
  differences: string[];
}

const STREAM_NOT_FOUND = 10059;

/** The stream holds event subjects of another layout: only the layout migration moves it. */
export class StreamLayoutError extends Error {
  constructor(
    readonly stream: string,
    readonly layout: string | undefined,
  ) {
    super(
      `stream ${stream} holds event subjects of another layout (${layout ?? 'the first, <prefix>.<aggregate>.<id>'}; ` +
        `this build writes ${JSON.stringify(SUBJECT_LAYOUT)}): move it with npm run migrate-layout (docs/operations.md)`,
    );
    this.name = 'StreamLayoutError';
  }
}

export async function streamInfoOrNull(
  jsm: Awaited<ReturnType<NatsConnection['jetstreamManager']>>,
  name: string,
): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    const natsError = error as NatsError;
    if (natsError.code === '404' || natsError.api_error?.err_code === STREAM_NOT_FOUND) return null;
    throw error;
  }
}

/**
 * The operator step for the event stream and its snapshot bucket (`npm run migrate`, under the
 * operator's NATS user; `npm start` and test setups run it too): creates them, brings the
 * stream to infra/nats/event-stream.json, and replaces a bucket that differs from its
 * definition (snapshots are never the source of truth, so dropping them loses nothing). A stream
 * of another subject layout is refused (StreamLayoutError): the layout migration moves it. No
 * service user may do any of this: services only bind and check (EventStore.verifyStream).
 */
export async function provisionEventStream(
  nc: NatsConnection,
  params: StreamDefinitionParams,
): Promise<ProvisionOutcome> {
  const jsm = await nc.jetstreamManager({ timeout: 10_000 });
  const config = eventStreamConfig(params);
  const differences: string[] = [];
  let stream: ProvisionOutcome['stream'] = 'up to date';
  const info = await streamInfoOrNull(jsm, params.stream);
  if (!info) {
    await jsm.streams.add(config);
    stream = 'created';
  } else {
    // Brought to the definition, a stream of the other layout would claim subjects it does not hold.
    if (info.config.description !== config.description)
      throw new StreamLayoutError(params.stream, info.config.description);
    const found = streamDifferences(info.config, config);
    if (found.length > 0) {
      differences.push(...found);
      // Settings the definition does not name but a stream may not have are taken away too.
      await jsm.streams.update(params.stream, {
        ...info.config,
        ...config,
        republish: undefined,
        mirror: undefined,
        sources: undefined,
        sealed: false,
      } as StreamConfig);
      stream = 'updated';
    }
  }

  const wanted = snapshotBucketConfig(params);
  let bucket: ProvisionOutcome['bucket'] = 'up to date';
  const current = await streamInfoOrNull(jsm, wanted.name!);
  if (current) {
    const found = streamDifferences(current.config, wanted);
    if (found.length > 0) {
      differences.push(...found.map((d) => `${wanted.name}: ${d}`));
      await jsm.streams.delete(wanted.name!);
      bucket = 'recreated';
    }
  }
  if (!current || bucket === 'recreated') {
    await nc.jetstream().views.kv(snapshotBucketOf(params.stream), { history: 1, replicas: params.replicas });
    if (bucket !== 'recreated') bucket = 'created';
  }
  return { stream, bucket, differences };
}
