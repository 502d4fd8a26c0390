import { randomUUID } from 'node:crypto';
import { Webhook } from 'svix';
import { messageId } from './ids';
import { OrderEvent } from './order-book';

export interface WebhookTarget {
  url: string;
  /** `whsec_<base64>`, as shown in the provider console. */
  secret: string;
}

export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status; absent when the request itself failed. */
  status?: number;
  error?: string;
}

/** `no-endpoint`: nothing was configured to receive it, as with a Svix app without endpoints. */
export type MessageState = 'pending' | 'delivered' | 'failed' | 'no-endpoint';

export interface WebhookMessage {
  svixId: string;
  type: string;
  actionId: string;
  orderId: string;
  /** The exact bytes signed and sent. */
  body: string;
  state: MessageState;
  attempts: DeliveryAttempt[];
}

export interface WebhookSenderOptions {
  target?: WebhookTarget;
  /** Waits between attempts; a message gets this many retries after its first attempt. */
  retryDelaysMs: number[];
  /** How long a receiver may take; Svix gives up after 15 s. */
  attemptTimeoutMs: number;
}

interface Outgoing {
  message: WebhookMessage;
  /** Attempts in the current delivery run; a manual redelivery starts a new run. */
  attemptsInRun: number;
}

/**
 * Delivers order events like Svix: signed, retried with back-off under the same message id,
 * first attempts sent one after another in publishing order.
 */
export class WebhookSender {
  private target: { url: string; signer: Webhook } | undefined;
  private readonly messages: Outgoing[] = [];
  private readonly queue: Outgoing[] = [];
  private draining = false;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: WebhookSenderOptions) {
    if (options.target) this.setTarget(options.target);
  }

  /** Checked here so a bad secret fails the caller at once, not every delivery later. */
  setTarget(target: WebhookTarget): void {
    // svix itself accepts a bare `whsec_` and would sign with an empty key.
    if (!/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(target.secret)) {
      throw new Error('webhook secret must be whsec_ followed by the base64 of a non-empty key');
    }
    this.target = { url: target.url, signer: new Webhook(target.secret) };
  }

  publish(events: OrderEvent[]): void {
    for (const event of events) {
      const actionId = randomUUID();
      const body = JSON.stringify({ type: event.type, actionId, data: event.order });
      const message: WebhookMessage = {
        svixId: messageId(),
        type: event.type,
        actionId,
        orderId: event.order.orderId,
        body,
        state: 'pending',
        attempts: [],
      };
      this.send({ message, attemptsInRun: 0 });
    }
  }

  /** Sends a message again under its original svix-id, as "resend" in the Svix console does. */
  redeliver(svixId: string): boolean {
    const outgoing = this.messages.find((candidate) => candidate.message.svixId === svixId);
    if (!outgoing) return false;
    this.send({ message: outgoing.message, attemptsInRun: 0 }, false);
    return true;
  }

  log(): WebhookMessage[] {
    return structuredClone(this.messages.map(({ message }) => message));
  }

  /** Resolves once no message is waiting for an attempt or a retry. */
  whenIdle(): Promise<void> {
    if (!this.busy()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closing.abort();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.queue.length = 0;
    this.releaseWaiters();
  }

  private send(outgoing: Outgoing, isNew = true): void {
    if (isNew) this.messages.push(outgoing);
    if (!this.target) {
      outgoing.message.state = 'no-endpoint';
      return;
    }
    outgoing.message.state = 'pending';
    this.queue.push(outgoing);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    for (let next = this.queue.shift(); next; next = this.queue.shift()) await this.attempt(next);
    this.draining = false;
    this.settle();
  }

  private async attempt(outgoing: Outgoing): Promise<void> {
    const { message } = outgoing;
    const target = this.target;
    if (!target || this.closing.signal.aborted) return;
    outgoing.attemptsInRun += 1;
    // A fresh timestamp and signature per attempt, or retries after the receiver's 5-minute window would be refused.
    const now = new Date();
    const attempt: DeliveryAttempt = { at: now.toISOString() };
    message.attempts.push(attempt);
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'svix-id': message.svixId,
          'svix-timestamp': String(Math.floor(now.getTime() / 1000)),
          'svix-signature': target.signer.sign(message.svixId, now, message.body),
        },
        body: message.body,
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.options.attemptTimeoutMs)]),
      });
      await response.arrayBuffer();
      attempt.status = response.status;
      if (response.ok) {
        message.state = 'delivered';
        return this.settle();
      }
    } catch (error) {
      attempt.error = error instanceof Error ? error.message : String(error);
    }
    if (this.closing.signal.aborted) return;
    const delay = this.options.retryDelaysMs[outgoing.attemptsInRun - 1];
    if (delay === undefined) {
      message.state = 'failed';
      return this.settle();
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      void this.attempt(outgoing);
    }, delay);
    this.retryTimers.add(timer);
  }

  private busy(): boolean {
    return this.draining || this.messages.some(({ message }) => message.state === 'pending');
  }

  private settle(): void {
    if (!this.busy()) this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
