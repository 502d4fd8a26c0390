import {
  AckPolicy,
  DeliverPolicy,
  headers as natsHeaders,
  JetStreamClient,
  JetStreamManager,
  JsMsg,
  MsgHdrs,
  nanos,
  NatsConnection,
  PubAck,
  RetentionPolicy,
  StorageType,
  StreamConfig,
  StreamInfo,
} from 'nats';
import { parseLegacySubject, subjectFor, SUBJECT_LAYOUT } from '@shop/contracts';
import { dropForeignDelivery, takeOwnDeliveriesOnly } from './own-deliveries';
import { streamInfoOrNull } from './provision-event-stream';
import { eventStreamConfig, StreamDefinitionParams } from './stream-definition';

/**
 * The description of the event stream while the migration fills it: no service binds to it
 * (verifyStream compares the description), so nothing is appended between the copied events.
 */
export const LAYOUT_BEING_FILLED = `${SUBJECT_LAYOUT}; being filled by npm run migrate-layout`;

/** Where each copied message came from in the old stream, on the temporary stream's copies only. */
const SOURCE_SEQUENCE = 'Shop-Layout-Source-Sequence';
/**
 * A message id the server had already seen within the duplicate window when its copy was
 * published (one command id appended twice, minutes apart): the copy keeps it under this name,
 * so the bulk copy stores it rather than dropping it as a repeat.
 */
const REPEATED_MSG_ID = 'Shop-Repeated-Msg-Id';
/** Publishes awaiting their acknowledgement at once: bulk copying pipelines its acks. */
const IN_FLIGHT = 256;
/** The copy's read consumer is removed by the server this long after its reader stopped pulling. */
const READ_INACTIVE_MS = 60_000;

export interface LayoutMigrationOutcome {
  /** What each run of a step did, in order, for the operator's output. */
  steps: string[];
  /** The new stream's sequences differ from the old ones (the old one had gaps). */
  renumbered: boolean;
}

/** Names the migration uses beside the stream's own: none overlaps another's subjects. */
export function layoutMigrationNames(params: StreamDefinitionParams) {
  return {
    temporaryStream: `${params.stream}_LAYOUT_MOVE`,
    temporaryPrefix: `${params.subjectPrefix}_layout_move`,
    retiredPrefix: `${params.subjectPrefix}_layout_retired`,
  };
}

/**
 * Moves an event stream of the first layout (`<prefix>.<aggregate>.<id>`) to SUBJECT_LAYOUT, by
 * replay, under the operator's NATS user with every service stopped:
 *
 * 1. seals the old stream: its subjects move to a retired prefix, so an append finds no stream
 *    (the services answer 503);
 * 2. copies every message, in order, with its headers, into a temporary stream under a temporary
 *    prefix, and checks the counts;
 * 3. deletes the old stream and creates it again, under its name, from the definition (its
 *    description saying it is being filled, so no service binds to it yet);
 * 4. copies the messages back in order under their new subjects, each publish expecting the
 *    stream's last sequence, so the stream is always a prefix of the copy; then gives the stream
 *    its definition's description;
 * 5. deletes the temporary stream.
 *
 * Each step finds where an earlier run stopped from the streams themselves (which exist, their
 * descriptions, subjects and counts), so a run after a crash carries on. A stream with no gaps
 * (the event stream allows no deletes) keeps every sequence: checkpoints, reaction records and
 * snapshots stay valid. Durable consumers go with the old stream; runners re-create theirs.
 */
export async function migrateSubjectLayout(
  nc: NatsConnection,
  params: StreamDefinitionParams,
  log: (line: string) => void = () => {},
): Promise<LayoutMigrationOutcome> {
  const jsm = await nc.jetstreamManager({ timeout: 10_000 });
  const js = nc.jetstream({ timeout: 10_000 });
  const names = layoutMigrationNames(params);
  const steps: string[] = [];
  const say = (line: string) => {
    steps.push(line);
    log(line);
  };
  let renumbered = false;
  for (;;) {
    const stream = await streamInfoOrNull(jsm, params.stream);
    const temporary = await streamInfoOrNull(jsm, names.temporaryStream);
    if (!stream && !temporary)
      throw new Error(`stream ${params.stream} does not exist: there is nothing to move`);
    if (stream?.config.description === SUBJECT_LAYOUT) {
      if (!temporary) {
        if (steps.length === 0)
          say(`stream ${params.stream} already has the layout ${JSON.stringify(SUBJECT_LAYOUT)}`);
        return { steps, renumbered };
      }
      await checkSameCount(jsm, params.stream, names.temporaryStream);
      await jsm.streams.delete(names.temporaryStream);
      say(`5/5 deleted the temporary stream ${names.temporaryStream}`);
    } else if (stream?.config.description === LAYOUT_BEING_FILLED) {
      if (!temporary)
        throw new Error(`stream ${params.stream} is half filled and ${names.temporaryStream} is gone`);
      const copied = await copyBack(js, jsm, params, names, stream, temporary);
      renumbered = copied.renumbered;
      await jsm.streams.update(params.stream, { ...stream.config, description: SUBJECT_LAYOUT });
      say(
        `4/5 copied ${copied.count} messages back into ${params.stream} under the new subjects` +
          (copied.renumbered
            ? '; the old stream had gaps, so sequences changed: rebuild every read model and reset the reactions (docs/operations.md)'
            : ', every one at its old sequence'),
      );
    } else if (!stream) {
      await jsm.streams.add({ ...eventStreamConfig(params), description: LAYOUT_BEING_FILLED });
      say(`3/5 created ${params.stream} again from its definition, to be filled`);
    } else if (!isSealed(stream, names.retiredPrefix)) {
      if (!stream.config.subjects?.includes(`${params.subjectPrefix}.>`))
        throw new Error(
          `stream ${params.stream} has neither layout (description ${JSON.stringify(stream.config.description)}, ` +
            `subjects ${JSON.stringify(stream.config.subjects)}): not moving it`,
        );
      await jsm.streams.update(params.stream, { ...stream.config, subjects: [`${names.retiredPrefix}.>`] });
      say(
        `1/5 sealed ${params.stream}: its subjects moved to ${names.retiredPrefix}.>, so nothing more is appended`,
      );
    } else {
      const count = await copyOut(js, jsm, params, names, stream, temporary);
      await checkSameCount(jsm, params.stream, names.temporaryStream);
      say(`2/5 copied ${count} messages into ${names.temporaryStream}, counts checked`);
      await jsm.streams.delete(params.stream);
      say(`3/5 deleted the old stream ${params.stream}`);
    }
  }
}

function isSealed(stream: StreamInfo, retiredPrefix: string): boolean {
  return JSON.stringify(stream.config.subjects) === JSON.stringify([`${retiredPrefix}.>`]);
}

async function checkSameCount(jsm: JetStreamManager, a: string, b: string): Promise<void> {
  const [first, second] = await Promise.all([jsm.streams.info(a), jsm.streams.info(b)]);
  if (first.state.messages !== second.state.messages)
    throw new Error(
      `${a} holds ${first.state.messages} messages, ${b} ${second.state.messages}: not going on`,
    );
}

/** Step 2: the sealed old stream into the temporary one, after what an earlier run copied. */
async function copyOut(
  js: JetStreamClient,
  jsm: JetStreamManager,
  params: StreamDefinitionParams,
  names: ReturnType<typeof layoutMigrationNames>,
  stream: StreamInfo,
  temporary: StreamInfo | null,
): Promise<number> {
  if (!temporary) {
    temporary = await jsm.streams.add({
      name: names.temporaryStream,
      description: `messages of ${params.stream} moving to ${JSON.stringify(SUBJECT_LAYOUT)}`,
      subjects: [`${names.temporaryPrefix}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: params.replicas,
      max_msg_size: stream.config.max_msg_size,
    } as Partial<StreamConfig> as StreamConfig);
  }
  let from = stream.state.first_seq;
  if (temporary.state.messages > 0) {
    const last = await jsm.streams.getMessage(names.temporaryStream, { seq: temporary.state.last_seq });
    from = Number(last.header.get(SOURCE_SEQUENCE)) + 1;
  }
  if (stream.state.messages === 0 || from > stream.state.last_seq) return temporary.state.messages;
  await copy(js, {
    from: params.stream,
    fromSequence: from,
    through: stream.state.last_seq,
    to: names.temporaryStream,
    subjectOf: (message) => {
      const old = parseLegacySubject(params.subjectPrefix, message.subject);
      if (!old)
        throw new Error(
          `message ${message.seq} of ${params.stream} is not an event subject: ${message.subject}`,
        );
      return `${names.temporaryPrefix}.${old.aggregate}.${old.id}`;
    },
    headersOf: (message, h) => h.set(SOURCE_SEQUENCE, String(message.seq)),
  });
  return (await jsm.streams.info(names.temporaryStream)).state.messages;
}

/** Step 4: the temporary stream back into the new one, after what an earlier run copied. */
async function copyBack(
  js: JetStreamClient,
  jsm: JetStreamManager,
  params: StreamDefinitionParams,
  names: ReturnType<typeof layoutMigrationNames>,
  stream: StreamInfo,
  temporary: StreamInfo,
): Promise<{ count: number; renumbered: boolean }> {
  if (temporary.state.messages === 0) return { count: 0, renumbered: false };
  const from = temporary.state.first_seq + stream.state.messages;
  if (from <= temporary.state.last_seq) {
    await copy(js, {
      from: names.temporaryStream,
      fromSequence: from,
      through: temporary.state.last_seq,
      to: params.stream,
      subjectOf: (message) => {
        const moved = parseLegacySubject(names.temporaryPrefix, message.subject);
        if (!moved)
          throw new Error(
            `message ${message.seq} of ${names.temporaryStream} is not a moved event: ${message.subject}`,
          );
        return subjectFor(params.subjectPrefix, moved.aggregate, moved.id);
      },
      headersOf: () => {},
    });
  }
  const filled = await jsm.streams.info(params.stream);
  const first = await jsm.streams.getMessage(names.temporaryStream, { seq: temporary.state.first_seq });
  const last = await jsm.streams.getMessage(names.temporaryStream, { seq: temporary.state.last_seq });
  const renumbered =
    Number(first.header.get(SOURCE_SEQUENCE)) !== filled.state.first_seq ||
    Number(last.header.get(SOURCE_SEQUENCE)) !== filled.state.last_seq;
  return { count: filled.state.messages, renumbered };
}

interface CopyPlan {
  from: string;
  fromSequence: number;
  through: number;
  to: string;
  subjectOf: (message: JsMsg) => string;
  headersOf: (message: JsMsg, headers: MsgHdrs) => void;
}

/**
 * Copies messages `fromSequence`..`through` of one stream to the end of another, in order, with
 * their headers (but for the original publish's expectations, which were the append's). Every
 * publish expects the target's last sequence, so a failed one fails all after it and the target
 * stays a prefix of the source: a later run carries on from the target's count. A message id the
 * target has already seen is stored once more under another header name (REPEATED_MSG_ID).
 */
async function copy(js: JetStreamClient, plan: CopyPlan): Promise<void> {
  const jsm = await js.jetstreamManager();
  const repeated = new Set<number>();
  let from = plan.fromSequence;
  for (;;) {
    const targetLast = (await jsm.streams.info(plan.to)).state.last_seq;
    try {
      await copyRun(js, plan, from, targetLast, repeated);
      return;
    } catch (error) {
      if (error instanceof DeliveryGap) {
        // Every message read before the gap was stored: on, with a new consumer, after them.
        from = error.next;
        continue;
      }
      if (!(error instanceof RepeatedMessageId)) throw error;
      // The messages before it were stored, the ones after it refused: on from the repeat.
      repeated.add(error.sequence);
      from = error.sequence;
    }
  }
}

class RepeatedMessageId extends Error {
  constructor(readonly sequence: number) {
    super(`message ${sequence} repeats a message id`);
  }
}

class DeliveryGap extends Error {
  constructor(readonly next: number) {
    super(`a delivery before message ${next} was lost`);
  }
}

async function copyRun(
  js: JetStreamClient,
  plan: CopyPlan,
  from: number,
  targetLast: number,
  repeated: ReadonlySet<number>,
): Promise<void> {
  // A pull consumer of the copy's own, read in order (a lost delivery ends the run, to go on after
  // the last message copied), taking only what it delivers: any user may push stored messages
  // onto another's inbox on nats-server 2.9 (own-deliveries), and one copied here would be a
  // message out of place in the new stream.
  const jsm = await js.jetstreamManager();
  const created = await jsm.consumers.add(plan.from, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: from,
    mem_storage: true,
    num_replicas: 1,
    inactive_threshold: nanos(READ_INACTIVE_MS),
  });
  const own = { stream: plan.from, consumer: created.name };
  const consumer = await js.consumers.get(plan.from, created.name);
  const messages = await consumer.consume({ max_messages: IN_FLIGHT * 2, abort_on_missing_resource: true });
  const pending: Array<{ sequence: number; ack: Promise<PubAck> }> = [];
  let expected = targetLast;
  let failure: unknown = null;
  let delivered = 0;
  let copied = from - 1;
  let gap = false;
  const settle = async () => {
    const { sequence, ack } = pending.shift()!;
    try {
      const result = await ack;
      if (result.duplicate && failure === null) failure = new RepeatedMessageId(sequence);
    } catch (error) {
      failure ??= error;
    }
  };
  try {
    takeOwnDeliveriesOnly(messages, own, (message) =>
      dropForeignDelivery('layout-migration', undefined, message, own),
    );
    for await (const message of messages) {
      if (message.info.deliverySequence !== ++delivered) {
        gap = true;
        break;
      }
      if (message.seq > plan.through) break;
      const headers = natsHeaders();
      for (const [key, values] of message.headers ?? []) {
        if (key.startsWith('Nats-Expected-') || key === SOURCE_SEQUENCE) continue;
        const name = key === 'Nats-Msg-Id' && repeated.has(message.seq) ? REPEATED_MSG_ID : key;
        for (const value of values) headers.append(name, value);
      }
      plan.headersOf(message, headers);
      pending.push({
        sequence: message.seq,
        ack: js.publish(plan.subjectOf(message), message.data, {
          headers,
          expect: { lastSequence: expected },
        }),
      });
      expected++;
      copied = message.seq;
      if (pending.length >= IN_FLIGHT) await settle();
      if (failure !== null || message.seq >= plan.through) break;
    }
  } finally {
    messages.stop();
    while (pending.length > 0) await settle();
    await jsm.consumers.delete(plan.from, created.name).catch(() => undefined);
  }
  if (failure !== null) throw failure;
  if (gap) throw new DeliveryGap(copied + 1);
}
