import { AckPolicy, ConsumerMessages, DeliverPolicy, JsMsg, nanos } from 'nats';
import { RecordedEvent } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { withCorrelationId } from '@shop/observability';
import { Reaction } from './reaction';
import { ReactionParking } from './reaction-parking';

export interface ReactionLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ReactionRunnerOptions {
  store: EventStore;
  reaction: Reaction;
  logger: ReactionLogger;
  /** Deliveries before a message is given up (logged as an error, never silently). */
  maxDeliveries?: number;
  /** Messages handled at once by this process; several processes share one consumer. */
  concurrency?: number;
  /** Where events go that still fail after the last delivery; they are retried from there. */
  parking?: ReactionParking;
  retryParkedEveryMs?: number;
}

const retryDelayMs = (delivery: number) => Math.min(500 * 2 ** (delivery - 1), 30_000);

/**
 * Runs a reaction on a durable pull consumer filtered to its aggregate. Several gateway
 * instances share the consumer and so share the work; a failure is redelivered with backoff.
 */
export class ReactionRunner {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ReactionRunnerOptions) {}

  async start(): Promise<void> {
    const { store, reaction } = this.options;
    const name = `reaction_${reaction.name}`;
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${store.subjectPrefix}.${reaction.aggregate}.*`,
      ack_wait: nanos(60_000),
      max_deliver: this.options.maxDeliveries ?? 10,
      max_ack_pending: 1000,
    };
    try {
      await store.jsm.consumers.info(store.stream, name);
    } catch {
      await store.jsm.consumers.add(store.stream, config).catch(async (error: unknown) => {
        // Another instance created it in between.
        await store.jsm.consumers.info(store.stream, name).catch(() => {
          throw error;
        });
      });
    }
    const consumer = await store.js.consumers.get(store.stream, name);
    this.messages = await consumer.consume({ max_messages: this.options.concurrency ?? 8 });
    this.loop = this.consume(this.messages);
    if (this.options.parking) {
      this.retryTimer = setInterval(() => void this.retryParked(), this.options.retryParkedEveryMs ?? 30_000);
    }
  }

  async stop(): Promise<void> {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.messages?.stop();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    const limit = this.options.concurrency ?? 8;
    for await (const message of messages) {
      const work = this.handle(message).finally(() => this.inFlight.delete(work));
      this.inFlight.add(work);
      if (this.inFlight.size >= limit) await Promise.race(this.inFlight);
    }
  }

  private async handle(message: JsMsg): Promise<void> {
    const { store, reaction, logger } = this.options;
    try {
      await this.react(await store.decode(message.subject, message.seq, message.data));
      message.ack();
    } catch (error) {
      const delivery = message.info.redeliveryCount;
      const max = this.options.maxDeliveries ?? 10;
      if (delivery >= max) {
        const entry = { reaction: reaction.name, subject: message.subject, sequence: message.seq };
        logger.error({ ...entry, err: error }, 'reaction gave up; event parked');
        await this.options.parking?.park({ ...entry, error: describe(error) }).catch((parkError: unknown) => {
          logger.error({ ...entry, err: parkError }, 'could not park the event');
        });
        message.term();
        return;
      }
      logger.warn(
        { reaction: reaction.name, subject: message.subject, delivery, err: error },
        'reaction failed; retrying',
      );
      message.nak(retryDelayMs(delivery));
    }
  }

  private async react(events: readonly RecordedEvent[]): Promise<void> {
    const { reaction } = this.options;
    for (const event of events) {
      if (!reaction.eventTypes.includes(event.type)) continue;
      await withCorrelationId(event.correlationId, () => reaction.handle(event));
    }
  }

  /** Handlers are idempotent, so a parked event retried by several processes at once is harmless. */
  private async retryParked(): Promise<void> {
    const { parking, reaction, store, logger } = this.options;
    if (!parking) return;
    try {
      for (const entry of await parking.parked(reaction.name)) {
        const events = await store.readCommit(entry.sequence);
        try {
          if (events) await this.react(events);
          await parking.release(reaction.name, entry.sequence);
          logger.warn({ reaction: reaction.name, sequence: entry.sequence }, 'parked event handled on retry');
        } catch {
          // Still failing: it stays parked and visible.
        }
      }
    } catch (error) {
      logger.warn({ reaction: reaction.name, err: error }, 'could not read parked events');
    }
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}
