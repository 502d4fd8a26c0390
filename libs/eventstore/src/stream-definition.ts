import { type ForbiddenSettings, settingDifferences } from './setting-differences';
import { StreamConfig } from 'nats';
import { aggregateWildcard, SUBJECT_LAYOUT } from '@shop/contracts';
import template from '../../../infra/nats/event-stream.json';

export interface StreamDefinitionParams {
  stream: string;
  subjectPrefix: string;
  replicas: number;
}

/**
 * The stream's configuration, kept in infra/ and filled in with this deployment's names. Its
 * description names the layout of its subjects (SUBJECT_LAYOUT): a process built for another
 * layout finds it differs (verifyStream) and does not start.
 */
export function eventStreamConfig(params: StreamDefinitionParams): StreamConfig {
  const filled = JSON.parse(
    JSON.stringify(template)
      .replaceAll('${STREAM}', params.stream)
      .replaceAll('${LAYOUT}', SUBJECT_LAYOUT)
      .replaceAll('${SUBJECTS}', aggregateWildcard(params.subjectPrefix))
      .replaceAll('"${REPLICAS}"', String(params.replicas)),
  ) as Record<string, unknown>;
  delete filled.$comment;
  return filled as unknown as StreamConfig;
}

/** The key-value bucket of aggregate snapshots beside the stream (see KvSnapshotStore). */
export const snapshotBucketOf = (stream: string) => `${stream}_snapshots`;

/**
 * What the services depend on in the snapshot bucket's stream (`KV_<bucket>`): its own keys only,
 * one value per key, kept until overwritten. The rest of a bucket's stream is what nats.js gives
 * a key-value bucket, created by the operator step (provisionEventStream).
 */
export function snapshotBucketConfig(params: StreamDefinitionParams): Partial<StreamConfig> {
  const bucket = snapshotBucketOf(params.stream);
  return {
    name: `KV_${bucket}`,
    subjects: [`$KV.${bucket}.>`],
    max_msgs_per_subject: 1,
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    num_replicas: params.replicas,
  };
}

/**
 * Settings no stream a service binds to may have: a copy of each message republished onto
 * another subject (a bucket republishing into the event stream would append events under the
 * writer of a snapshot key), messages coming from another stream, or a seal no one can lift.
 */
const forbidden: ForbiddenSettings = {
  republish: (value) => value !== undefined && value !== null,
  mirror: (value) => value !== undefined && value !== null,
  sources: (value) => Array.isArray(value) && value.length > 0,
  sealed: (value) => value === true,
};

/**
 * Each setting of `actual` that is not what `wanted` says, or that a stream may not have, as
 * `name: actual (wanted)`. The server leaves false, zero and empty settings out of what it reports.
 */
export const streamDifferences = (actual: StreamConfig, wanted: Partial<StreamConfig>): string[] =>
  settingDifferences(actual, wanted, forbidden);

/** A stream a service binds to is missing, or differs from its definition: the service does not start. */
export class StreamDefinitionError extends Error {
  constructor(
    readonly stream: string,
    readonly differences: readonly string[],
  ) {
    super(
      `stream ${stream} ${
        differences.length === 0 ? 'does not exist' : `differs from its definition: ${differences.join('; ')}`
      }; the operator step (npm run migrate, under the operator's NATS user) creates and updates it${
        differences.some((d) => d.startsWith('description:'))
          ? ', and npm run migrate-layout moves a stream of another subject layout (docs/operations.md)'
          : ''
      }`,
    );
    this.name = 'StreamDefinitionError';
  }
}
