import { connect, NatsConnection } from 'nats';

/** One connection per process; it reconnects forever so a NATS restart is survived. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url.split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: false,
    // Otherwise every request (each publish with its acknowledgement, each stream get) captures
    // two stack traces up front in case it fails: a measurable share of a command's CPU.
    noAsyncTraces: true,
  });
}
