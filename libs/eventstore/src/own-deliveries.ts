/**
 * Taking only what a receiver's own consumer delivers. nats-server 2.9 does not check a push
 * consumer's deliver subject against its creator's rights: any user that may create the
 * ephemeral read consumer can push stored messages (any subject, any sequence) onto another
 * process's inbox, learned from the consumer list. Every receiver of JetStream deliveries (the
 * event store's reads, the commit follower, the projection and reaction runners) therefore takes
 * a message only when its acknowledgement subject names the stream and the consumer it created
 * or bound and, where it filtered, its subject matches the filter; anything else is dropped
 * unacknowledged and unused, counted, and logged at most once per receiver every 10 s.
 */
import type { ConsumerMessages, Msg, NatsError } from 'nats';

/** What a delivered message's reply subject says about its delivery. */
export interface AckSubject {
  stream: string;
  consumer: string;
  deliveryCount: number;
  streamSequence: number;
  deliverySequence: number;
  pending: number;
}

const isCount = (token: string | undefined): boolean => token !== undefined && /^\d+$/.test(token);

/**
 * The tokens of a JetStream delivery's reply subject, read as nats.js's `parseInfo` reads them:
 * `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`
 * (nats-server 2.9), or with `<domain>.<account hash>` after `ACK` and a random token at the end
 * (newer servers). Null for anything else, a message without a reply included.
 */
export function parseAckSubject(reply: string | undefined): AckSubject | null {
  if (!reply) return null;
  const tokens = reply.split('.');
  if (tokens.length === 9) tokens.splice(2, 0, '_', '');
  else if (tokens.length !== 11 && tokens.length !== 12) return null;
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK') return null;
  const [stream, consumer] = [tokens[4]!, tokens[5]!];
  if (!stream || !consumer || ![6, 7, 8, 10].every((i) => isCount(tokens[i]))) return null;
  return {
    stream,
    consumer,
    deliveryCount: Number(tokens[6]),
    streamSequence: Number(tokens[7]),
    deliverySequence: Number(tokens[8]),
    pending: Number(tokens[10]),
  };
}

/** Whether `subject` matches a NATS filter subject (`*` one token, a last `>` one or more). */
export function subjectMatches(subject: string, filter: string): boolean {
  const tokens = subject.split('.');
  const wanted = filter.split('.');
  for (let i = 0; i < wanted.length; i++) {
    const want = wanted[i]!;
    if (want === '>' && i === wanted.length - 1) return tokens.length > i;
    if (i >= tokens.length || (want !== '*' && want !== tokens[i])) return false;
  }
  return tokens.length === wanted.length;
}

/** The consumer a receiver created or bound to: the only one whose deliveries it takes. */
export interface OwnConsumer {
  stream: string;
  consumer: string;
  /** Its filter subject, when it has one: a delivery on any other subject is not its. */
  filter?: string;
}

/**
 * The check every receiver of JetStream deliveries makes: the delivery's acknowledgement subject
 * when `own` delivered it (its stream and consumer tokens, and its subject within the filter),
 * else null. Status messages (heartbeats, flow control) carry no such subject: a receiver tells
 * them apart first, as before.
 */
export function ownDelivery(message: Pick<Msg, 'subject' | 'reply'>, own: OwnConsumer): AckSubject | null {
  const ack = parseAckSubject(message.reply);
  if (!ack || ack.stream !== own.stream || ack.consumer !== own.consumer) return null;
  if (own.filter !== undefined && !subjectMatches(message.subject, own.filter)) return null;
  return ack;
}

/** Where a log line about dropped deliveries goes (pino's shape). */
export interface DeliveryLogger {
  warn(obj: object, msg: string): void;
}

/** The kinds of receiver, the label of the dropped-deliveries metric. */
export type DeliveryReceiver = 'read' | 'follower' | 'projection' | 'reaction' | 'layout-migration';

/** At most one warning per receiver this often; the drops in between are counted into the next. */
const WARN_EVERY_MS = 10_000;

/** Without a logger of the process's own: one JSON line on stderr, as pino writes a warning. */
const stderrLogger: DeliveryLogger = {
  warn(obj, msg) {
    process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), ...obj, msg })}\n`);
  },
};

const droppedByKind = new Map<DeliveryReceiver, number>();
const warnings = new Map<string, { at: number; unsaid: number; timer: NodeJS.Timeout | null }>();

/** Foreign deliveries dropped in this process so far, by kind of receiver (a counter's values). */
export function foreignDeliveriesDropped(): ReadonlyMap<DeliveryReceiver, number> {
  return droppedByKind;
}

/**
 * Drops a message `own` did not deliver: nothing is answered or acknowledged. Counted; the first
 * of a receiver is logged at once, the rest at most every 10 s as a count (a flood is one line
 * per 10 s). `name` tells receivers of a kind apart (a projection's or a reaction's name).
 */
export function dropForeignDelivery(
  receiver: DeliveryReceiver,
  name: string | undefined,
  message: Pick<Msg, 'subject' | 'reply'>,
  own: OwnConsumer,
  logger: DeliveryLogger = stderrLogger,
): void {
  droppedByKind.set(receiver, (droppedByKind.get(receiver) ?? 0) + 1);
  const key = `${receiver}:${name ?? ''}`;
  const ack = parseAckSubject(message.reply);
  const say = (dropped: number) =>
    logger.warn(
      {
        receiver,
        ...(name ? { name } : {}),
        stream: own.stream,
        consumer: own.consumer,
        ...(own.filter ? { filter: own.filter } : {}),
        dropped,
        last: {
          subject: message.subject,
          ...(ack ? { stream: ack.stream, consumer: ack.consumer } : { reply: message.reply ?? null }),
        },
      },
      "dropped messages pushed onto this process's inbox by a consumer it did not create",
    );
  const now = Date.now();
  const state = warnings.get(key);
  if (!state || now - state.at >= WARN_EVERY_MS) {
    if (state?.timer) clearTimeout(state.timer);
    say(1 + (state?.unsaid ?? 0));
    warnings.set(key, { at: now, unsaid: 0, timer: null });
    return;
  }
  state.unsaid++;
  state.timer ??= setTimeout(
    () => {
      state.timer = null;
      if (state.unsaid === 0) return;
      say(state.unsaid);
      state.at = Date.now();
      state.unsaid = 0;
    },
    state.at + WARN_EVERY_MS - now,
  ).unref();
}

interface PullInternals {
  inbox?: unknown;
  sub?: { callback?: (error: NatsError | null, message: Msg) => void };
}

/**
 * Makes nats.js's pull `consume()` (or `fetch()`) take only `own`'s deliveries: a stored message
 * any other consumer pushes onto its inbox is handed to `dropped` before nats.js sees it, so it
 * moves neither the pull's pending counts nor its heartbeat watch, and is never yielded. The
 * server's statuses for the pull (heartbeats, timeouts) come on the inbox itself and pass as
 * before. Call it right after `consume()` resolves, before anything is awaited: nothing has been
 * delivered yet. Reaches into nats.js 2.x's PullConsumerMessagesImpl (its inbox and its
 * subscription's callback); with a version without them, the pull is stopped and this throws,
 * rather than run unguarded.
 */
export function takeOwnDeliveriesOnly(
  messages: ConsumerMessages,
  own: OwnConsumer,
  dropped: (message: Msg) => void,
): void {
  const internals = messages as unknown as PullInternals;
  const { inbox, sub } = internals;
  const deliver = sub?.callback;
  if (typeof inbox !== 'string' || !sub || typeof deliver !== 'function') {
    messages.stop();
    throw new Error("nats.js's pull consumer changed: cannot check who delivers its messages");
  }
  sub.callback = (error, message) => {
    if (!error && message.subject !== inbox && !ownDelivery(message, own)) {
      dropped(message);
      return;
    }
    deliver(error, message);
  };
}
