import { ServerNats } from '@nestjs/microservices';
import type { Msg } from 'nats';
import { connectNats, NatsSettings } from '@shop/eventstore';

/** Instances share requests: each one is answered by one member of the group. */
const SEARCH_QUEUE_GROUP = 'search-service';

/**
 * Nest's NATS transport over the `nats` client the rest of the stack uses (Nest 12 would load
 * `@nats-io/transport-node`, which this repository does not install). On close it stops taking
 * requests, gives the ones in hand `gracePeriodMs` to answer, then closes its connection.
 */
export class SearchNatsServer extends ServerNats {
  constructor(
    private readonly nats: NatsSettings,
    gracePeriodMs: number,
  ) {
    super({ queue: SEARCH_QUEUE_GROUP, gracefulShutdown: true, gracePeriod: gracePeriodMs });
  }

  override createNatsClient(): ReturnType<ServerNats['createNatsClient']> {
    return connectNats(this.nats, 'search-rpc');
  }

  /**
   * A stored message a JetStream consumer pushes onto a request subject (any stream reader may
   * create one, and nats-server 2.9 does not check its deliver subject) is no request: it is
   * dropped unanswered, so it is neither handled nor acknowledged.
   */
  override handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    if (natsMsg.reply?.startsWith('$JS.ACK.')) return Promise.resolve();
    return super.handleMessage(channel, natsMsg as Parameters<ServerNats['handleMessage']>[1]);
  }
}
