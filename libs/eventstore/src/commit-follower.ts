import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy, JetStreamManager, nanos, Subscription } from 'nats';
import type { EventStore } from './event-store';
import { dropForeignDelivery, OwnConsumer, ownDelivery } from './own-deliveries';
import { answerFlowControl, isStatus, ownInbox, stallWatch } from './push-delivery';

/** A commit heard on the followed subjects: which subject, at which stream sequence. */
export interface FollowedCommit {
  subject: string;
  sequence: number;
}

export interface CommitListener {
  /** Every commit on the followed subjects from `following` on, each once and in stream order. */
  commit(commit: FollowedCommit): void;
  /** Following (again): no commit stored from here on goes unheard until `interrupted`. */
  following(): void;
  /** A stall, a lost connection or the stop: commits may go unheard until `following` again. */
  interrupted(): void;
}

export interface CommitFollower {
  stop(): Promise<void>;
}

/** The server sends a heartbeat this often when it has nothing; three missed mark a stall. */
const HEARTBEAT_MS = 1000;
const RETRY_MS = 1000;
const CREATE_TIMEOUT_MS = 2000;
/** A consumer nobody listens to any more (a crashed follower's) is removed by the server after this long. */
const INACTIVE_MS = 5000;

/**
 * Hears every commit stored on `filterSubject` from now on, as it is stored, whoever appends it:
 * an R1 in-memory consumer pushes the headers only (the subject and sequence are what a follower
 * needs) onto this process's own inbox, so it needs no right a reader lacks. After a stall or a
 * lost connection it says so, and resumes after the last commit it heard with a new consumer, so
 * nothing in between is skipped.
 */
export function followCommits(
  store: Pick<EventStore, 'nc' | 'stream' | 'lastStreamSequence' | 'deliveryLogger'>,
  filterSubject: string,
  listener: CommitListener,
): CommitFollower {
  const stopping = new AbortController();
  let subscription: Subscription | null = null;
  const running = (async () => {
    let jsm: JetStreamManager | null = null;
    let next: number | null = null;
    while (!stopping.signal.aborted) {
      try {
        jsm ??= await store.nc.jetstreamManager({ timeout: CREATE_TIMEOUT_MS, checkAPI: false });
        next ??= (await store.lastStreamSequence()) + 1;
        const inbox = ownInbox(store.nc);
        subscription = store.nc.subscribe(inbox);
        const stall = stallWatch(subscription, HEARTBEAT_MS * 3);
        const consumer = await jsm.consumers.add(store.stream, {
          deliver_subject: inbox,
          ack_policy: AckPolicy.None,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: next,
          filter_subject: filterSubject,
          headers_only: true,
          num_replicas: 1,
          mem_storage: true,
          flow_control: true,
          idle_heartbeat: nanos(HEARTBEAT_MS),
          inactive_threshold: nanos(INACTIVE_MS),
        });
        if (stopping.signal.aborted) break;
        const own: OwnConsumer = { stream: store.stream, consumer: consumer.name, filter: filterSubject };
        listener.following();
        stall.arm();
        for await (const message of subscription) {
          if (isStatus(message)) {
            stall.arm();
            answerFlowControl(store.nc, message);
            continue;
          }
          // Another user's push consumer aimed at this inbox: dropped unheard, the watch not fed.
          const delivery = ownDelivery(message, own);
          if (!delivery) {
            dropForeignDelivery('follower', undefined, message, own, store.deliveryLogger);
            continue;
          }
          stall.arm();
          const sequence = delivery.streamSequence;
          if (sequence < next) continue;
          next = sequence + 1;
          listener.commit({ subject: message.subject, sequence });
        }
        stall.pause();
      } catch {
        // Unreachable or refused: said below, and tried again after a pause.
      } finally {
        subscription?.unsubscribe();
        subscription = null;
        listener.interrupted();
      }
      await sleep(RETRY_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      subscription?.unsubscribe();
      await running;
    },
  };
}
