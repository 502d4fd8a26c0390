import { createInbox, ErrorCode, Msg, MsgHdrs, NatsConnection, NatsError, PubAck } from 'nats';

/** What the append asks of JetStream besides storing the message (the Nats-* publish headers). */
export interface PublishExpectations {
  msgID?: string;
  lastSubjectSequence: number;
}

interface PendingAck {
  resolve: (ack: PubAck) => void;
  reject: (error: Error) => void;
  deadline: number;
}

interface JsApiError {
  code: number;
  err_code?: number;
  description?: string;
}

/**
 * JetStream publishes whose acknowledgements come back on one subscription of the store's own,
 * under one token each, instead of through `js.publish` (a request through nats.js's muxer,
 * which builds a cancellation error with a stack trace for every request it completes, and a
 * timer and a promise race besides). On the wire it is the same publish: the Nats-Msg-Id and
 * Nats-Expected-Last-Subject-Sequence headers and a reply subject; the errors are the ones
 * `js.publish` throws (a timeout, no responders, the API error with its `api_error`).
 *
 * Every publish waits the same time, so the pending acks' deadlines are in the order they were
 * published: one timer, for the oldest, serves them all.
 */
export class PublishAcks {
  private readonly replyPrefix: string;
  private readonly pending = new Map<string, PendingAck>();
  private next = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    // Under the connection's inbox prefix: a process's NATS user may read replies only there.
    const inboxPrefix = (nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
    this.replyPrefix = `${createInbox(inboxPrefix)}.`;
    const subscription = nc.subscribe(`${this.replyPrefix}*`, {
      callback: (error, msg) => {
        if (!error) this.settle(msg);
      },
    });
    void subscription.closed.then(() => {
      const code = nc.isDraining() ? ErrorCode.ConnectionDraining : ErrorCode.ConnectionClosed;
      this.failAll(() => NatsError.errorForCode(code));
    });
  }

  publish(subject: string, data: Uint8Array, headers: MsgHdrs, expect: PublishExpectations): Promise<PubAck> {
    if (expect.msgID) headers.set('Nats-Msg-Id', expect.msgID);
    headers.set('Nats-Expected-Last-Subject-Sequence', String(expect.lastSubjectSequence));
    const token = (this.next++).toString(36);
    return new Promise<PubAck>((resolve, reject) => {
      this.nc.publish(subject, data, { reply: this.replyPrefix + token, headers });
      this.pending.set(token, { resolve, reject, deadline: performance.now() + this.timeoutMs });
      this.timer ??= setTimeout(() => this.expire(), this.timeoutMs);
    });
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.replyPrefix.length);
    const pending = this.pending.get(token);
    if (!pending) return;
    this.pending.delete(token);
    try {
      pending.resolve(pubAckOf(msg));
    } catch (error) {
      pending.reject(error as Error);
    }
  }

  /** Fails the acks whose deadline passed (the oldest first), and waits for the next one's. */
  private expire(): void {
    this.timer = null;
    const now = performance.now();
    for (const [token, pending] of this.pending) {
      if (pending.deadline > now) {
        this.timer = setTimeout(() => this.expire(), pending.deadline - now);
        return;
      }
      this.pending.delete(token);
      pending.reject(NatsError.errorForCode(ErrorCode.Timeout));
    }
  }

  private failAll(error: () => Error): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const pending of this.pending.values()) pending.reject(error());
    this.pending.clear();
  }
}

/** The acknowledgement, or the error `js.publish` throws for this reply. */
function pubAckOf(msg: Msg): PubAck {
  if (msg.data.length === 0 && msg.headers?.code === 503)
    throw NatsError.errorForCode(ErrorCode.NoResponders);
  const reply = msg.json<Partial<PubAck> & { error?: JsApiError }>();
  if (reply.error && reply.error.code >= 300) throw apiError(reply.error);
  if (!reply.stream) throw NatsError.errorForCode(ErrorCode.JetStreamInvalidAck);
  return { ...reply, duplicate: reply.duplicate ?? false } as PubAck;
}

/** As nats.js reports a JetStream API error: the status as its code, the server's error as `api_error`. */
function apiError(error: JsApiError): NatsError {
  const description = (error.description ?? '').toLowerCase();
  const failure =
    error.code === 503
      ? NatsError.errorForCode(ErrorCode.JetStreamNotEnabled, new Error(description))
      : new NatsError(description || ErrorCode.Unknown, String(error.code));
  failure.api_error = error as NatsError['api_error'];
  return failure;
}
