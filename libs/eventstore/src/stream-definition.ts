import { StreamConfig } from 'nats';
import template from '../../../infra/nats/event-stream.json';

export interface StreamDefinitionParams {
  stream: string;
  subjectPrefix: string;
  replicas: number;
}

/** The stream's configuration, kept in infra/ and filled in with this deployment's names. */
export function eventStreamConfig(params: StreamDefinitionParams): StreamConfig {
  const filled = JSON.parse(
    JSON.stringify(template)
      .replaceAll('${STREAM}', params.stream)
      .replaceAll('${PREFIX}', params.subjectPrefix)
      .replaceAll('"${REPLICAS}"', String(params.replicas)),
  ) as Record<string, unknown>;
  delete filled.$comment;
  return filled as unknown as StreamConfig;
}
