import type { EventStore } from '@shop/eventstore';
import { sampled } from './sampled';
import { ServiceMetrics } from './service-metrics';

interface ConsumerSample {
  name: string;
  redelivered: number;
  pending: number;
  ackPending: number;
}

/**
 * The durable consumers a service runs, as JetStream itself counts them: redeliveries (a
 * handler failed or was too slow to ack), messages not yet delivered, and messages delivered
 * but not yet acknowledged. Read from the server, so consumers shared by several processes are
 * counted once, whichever process is scraped.
 */
export function registerConsumerStatus(
  metrics: ServiceMetrics,
  store: EventStore,
  owned: (consumer: string) => boolean,
): void {
  // One API call lists every consumer of the stream with its counters; the service's own are kept.
  const sample = sampled(async () => {
    const consumers: ConsumerSample[] = [];
    for await (const info of store.jsm.consumers.list(store.stream)) {
      if (!owned(info.name)) continue;
      consumers.push({
        name: info.name,
        redelivered: info.num_redelivered,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
      });
    }
    return consumers;
  });
  const gauge = (name: string, help: string, pick: (s: ConsumerSample) => number) =>
    metrics.gauge(name, help, ['consumer'], async (g) => {
      for (const s of await sample()) g.set({ consumer: s.name }, pick(s));
    });
  gauge(
    'jetstream_consumer_redelivered',
    'Messages the server has redelivered to a durable consumer since it was created',
    (s) => s.redelivered,
  );
  gauge(
    'jetstream_consumer_pending',
    'Stream messages a durable consumer has not been sent yet',
    (s) => s.pending,
  );
  gauge(
    'jetstream_consumer_ack_pending',
    'Messages sent to a durable consumer and not acknowledged yet',
    (s) => s.ackPending,
  );
}
