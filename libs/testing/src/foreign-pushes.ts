import { setTimeout as sleep } from 'node:timers/promises';
import {
  AckPolicy,
  ConsumerConfig,
  ConsumerInfo,
  DeliverPolicy,
  JetStreamManager,
  nanos,
  NatsConnection,
  Subscription,
} from 'nats';

/** Polls `probe` until `ok` holds (15 s at most). */
export async function pollUntil<T>(
  probe: () => Promise<T> | T,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(20);
  }
}

/**
 * Another connection pushing a stream's stored messages onto someone else's subject, as any user
 * that may create the ephemeral read consumer can on nats-server 2.9 (it does not check a deliver
 * subject against its creator's rights). Its consumers acknowledge explicitly, so a receiver that
 * acknowledged one of its messages would show in its ack floor.
 */
export class ForeignPusher {
  private readonly created: string[] = [];

  private constructor(
    readonly jsm: JetStreamManager,
    readonly stream: string,
  ) {}

  static async on(nc: NatsConnection, stream: string): Promise<ForeignPusher> {
    return new ForeignPusher(await nc.jetstreamManager(), stream);
  }

  /** An ephemeral push consumer onto `subject`: by default every stored message, and each one stored after. */
  async pushOnto(subject: string, config: Partial<ConsumerConfig> = {}): Promise<string> {
    const info = await this.jsm.consumers.add(this.stream, {
      deliver_subject: subject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      inactive_threshold: nanos(5000),
      ...config,
    });
    this.created.push(info.name);
    return info.name;
  }

  info(name: string): Promise<ConsumerInfo> {
    return this.jsm.consumers.info(this.stream, name);
  }

  /** Until consumer `name` has sent everything it has, through `sequence` at least. */
  deliveredThrough(name: string, sequence: number): Promise<ConsumerInfo> {
    return pollUntil(
      () => this.info(name),
      (info) => info.delivered.stream_seq >= sequence && info.num_pending === 0,
      `${name} delivered through ${sequence}`,
    );
  }

  /** Until every consumer made here has sent everything it has, through `sequence` at least. */
  async allDeliveredThrough(sequence: number): Promise<void> {
    for (const name of this.created) await this.deliveredThrough(name, sequence);
  }

  /** The consumers of the stream as any user lists them ($JS.API.CONSUMER.LIST). */
  async listed(): Promise<ConsumerInfo[]> {
    const all: ConsumerInfo[] = [];
    for await (const info of this.jsm.consumers.list(this.stream)) all.push(info);
    return all;
  }

  /** Messages sent by every consumer made here so far, and the highest acknowledged sequence of any. */
  async totals(): Promise<{ delivered: number; acknowledged: number }> {
    let delivered = 0;
    let acknowledged = 0;
    for (const name of this.created) {
      // One the server removed (nobody listened on its subject for 5 s) counts no more.
      const info = await this.info(name).catch(() => null);
      if (!info) continue;
      delivered += info.delivered.consumer_seq;
      acknowledged = Math.max(acknowledged, info.ack_floor.stream_seq);
    }
    return { delivered, acknowledged };
  }

  async removeAll(): Promise<void> {
    for (const name of this.created.splice(0))
      await this.jsm.consumers.delete(this.stream, name).catch(() => undefined);
  }
}

/**
 * The inbox of each pull consumer's `consume()`, seen in its pull requests
 * (`$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`) by a connection the test server lets listen:
 * the pull inbox, as a test makes it observable without touching the code that pulls.
 */
export class PullInboxes {
  private readonly latest = new Map<string, string>();

  private constructor(private readonly subscription: Subscription) {}

  static watch(nc: NatsConnection, stream: string): PullInboxes {
    let inboxes: PullInboxes | null = null;
    const subscription = nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.*`, {
      callback: (error, message) => {
        if (!error && message.reply) inboxes?.latest.set(message.subject.split('.').at(-1)!, message.reply);
      },
    });
    inboxes = new PullInboxes(subscription);
    return inboxes;
  }

  /** The inbox consumer `consumer`'s latest pull asked to be answered on. */
  of(consumer: string): Promise<string> {
    return pollUntil(
      () => this.latest.get(consumer),
      (inbox) => inbox !== undefined,
      `a pull of ${consumer}`,
    ) as Promise<string>;
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
