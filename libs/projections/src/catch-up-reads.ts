import { aggregateHash, AggregateName, parseSubject } from '@shop/contracts';
import { EventStore, RawCommit } from '@shop/eventstore';
import { BatchItem } from './batch-applier';
import { decodeBatchItems } from './decode-batch-items';

/** Which messages a runner applies: of its aggregates, and of its partition when it has one. */
export interface CatchUpReader {
  aggregates: ReadonlySet<AggregateName>;
  partition?: { index: number; count: number };
}

/**
 * What a catching-up runner asks for: its messages from `from`, up to about `until` (the
 * stream's end at the latest: asking costs the runner no look-up, so it asks at once).
 */
export interface CatchUpRequest extends CatchUpReader {
  from: number;
  until: number;
}

export interface CatchUpWindow {
  /** The runner's messages from `from` through `through`, decoded, in stream order. */
  items: BatchItem[];
  /**
   * How far the read went for this runner, which may be short of its `until` or past it (never
   * past what the stream held when some member asked): its position may move there.
   */
  through: number;
  /** The stream's last sequence when the round read. */
  end: number;
}

export interface CatchUpReadsOptions {
  /** Stream messages one round reads at most: what its decoded window may hold in memory. */
  maxMessages?: number;
  /** A round waits this long for the other catching-up runners to ask (they are writing). */
  gatherMs?: number;
}

interface Waiting {
  member: object;
  request: CatchUpRequest;
  resolve(window: CatchUpWindow): void;
  reject(error: unknown): void;
}

/** A message's aggregate and id hash, read once however many runners apply it. */
interface Parsed {
  aggregate: AggregateName;
  hash: number;
}

/** What a round read: the messages some member applies, decoded, and for which members. */
interface Round {
  from: number;
  until: number;
  end: number;
  /** Its messages by aggregate, in stream order, each with its id hash. */
  byAggregate: ReadonlyMap<AggregateName, readonly { item: BatchItem; hash: number }[]>;
  /**
   * The members whose messages it holds, each from where it stood then: it may serve one late
   * from there on (a member that started over from an earlier position asks before that).
   */
  readers: ReadonlyMap<object, number>;
}

/**
 * One stream read and one decode shared by the runners of a process that are catching up, the
 * way a rebuild reads the stream once for every projection: each runner reading its own
 * aggregates would have the server deliver, and this process decode, a message once per
 * projection that reads it (an account's commits are read by four). A round waits for every
 * member to ask (each asks for its next window as soon as it has this one, and writes this one
 * meanwhile) or `gatherMs`, reads from the lowest position asked for, keeps the messages of
 * every member that has not read past them, decoded, and hands each asking member its own. A member that asks late for a range the last round read is served
 * from it, and so joins the others' next round. A member far ahead gets an empty window until
 * the others reach it.
 */
export class CatchUpReads {
  /** Each member, and once it has asked, what it reads and from where it will ask next. */
  private readonly members = new Map<object, { reader: CatchUpReader; next: number } | null>();
  /** When the last member joined: runners starting together are gathered into one first round. */
  private joinedAt = 0;
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private last: Round | null = null;
  private readonly maxMessages: number;
  private readonly gatherMs: number;

  constructor(
    private readonly store: EventStore,
    options: CatchUpReadsOptions = {},
  ) {
    this.maxMessages = options.maxMessages ?? 10_000;
    this.gatherMs = options.gatherMs ?? 100;
  }

  /** A runner starts catching up: rounds wait for its requests too. */
  join(member: object): void {
    this.members.set(member, null);
    this.joinedAt = performance.now();
  }

  /** A runner is done catching up (or stops): rounds no longer wait for it. */
  leave(member: object): void {
    this.members.delete(member);
    // A window it asked for and will not take: no round reads from where it stood.
    this.waiting = this.waiting.filter((w) => {
      if (w.member !== member) return true;
      w.resolve({ items: [], through: w.request.from - 1, end: w.request.from - 1 });
      return false;
    });
    if (this.members.size === 0) this.last = null;
    this.next();
  }

  read(member: object, request: CatchUpRequest): Promise<CatchUpWindow> {
    const reader = {
      aggregates: request.aggregates,
      ...(request.partition ? { partition: request.partition } : {}),
    };
    this.members.set(member, { reader, next: request.from });
    return new Promise((resolve, reject) => {
      this.waiting.push({ member, request, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    const last = this.last;
    if (last) {
      this.waiting = this.waiting.filter(({ member, request, resolve }) => {
        const kept = last.readers.get(member);
        if (kept === undefined || request.from < Math.max(kept, last.from) || request.from > last.until)
          return true;
        resolve(this.serve(member, request, last));
        return false;
      });
    }
    if (this.reading || this.waiting.length === 0) return;
    const sinceJoin = performance.now() - this.joinedAt;
    const all = this.waiting.length >= this.members.size;
    if (all && sinceJoin >= this.gatherMs) {
      void this.round();
      return;
    }
    // Everyone asked but a member joined just now (others may be about to): wait out the rest.
    this.timer ??= setTimeout(() => void this.round(), all ? this.gatherMs - sinceJoin : this.gatherMs);
  }

  private async round(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.reading || this.waiting.length === 0) return;
    this.reading = true;
    const asked = this.waiting;
    this.waiting = [];
    try {
      const from = Math.min(...asked.map((w) => w.request.from));
      const end = await this.store.lastStreamSequence();
      const until = Math.min(
        Math.max(...asked.map((w) => w.request.until)),
        end,
        from + this.maxMessages - 1,
      );
      // Where each member stands as the read starts, fixed for the round: a member served late or
      // starting over meanwhile does not change what the round keeps for whom.
      const readers = new Map(
        [...this.members].flatMap(([member, state]) =>
          state ? [[member, { reader: state.reader, next: state.next }] as const] : [],
        ),
      );
      const wanted = [...readers.values()];
      const raws: RawCommit[] = [];
      const parsed: Parsed[] = [];
      for await (const raw of this.store.readRaw(from, until)) {
        const meta = this.parse(raw.subject);
        // Kept for a member that has not read this far yet, whether or not it asked this round.
        const sequence = raw.sequence;
        if (meta && wanted.some(({ reader, next }) => sequence >= next && applies(reader, meta))) {
          raws.push(raw);
          parsed.push(meta);
        }
      }
      const items = await decodeBatchItems(this.store, raws);
      const byAggregate = new Map<AggregateName, { item: BatchItem; hash: number }[]>();
      for (const [i, item] of items.entries()) {
        const { aggregate, hash } = parsed[i]!;
        let messages = byAggregate.get(aggregate);
        if (!messages) byAggregate.set(aggregate, (messages = []));
        messages.push({ item, hash });
      }
      const kept = new Map([...readers].map(([member, { next }]) => [member, next]));
      const round: Round = { from, until, end, byAggregate, readers: kept };
      this.last = round;
      // Every member gets the whole round, past its own `until` too: held to their own windows,
      // members at different positions would have the next round read again what this one read.
      for (const { member, request, resolve } of asked) resolve(this.serve(member, request, round));
    } catch (error) {
      for (const { reject } of asked) reject(error);
    } finally {
      this.reading = false;
      this.next();
    }
  }

  /** A member's part of a round that read from at or before its `from`; it asks next after it. */
  private serve(member: object, request: CatchUpRequest, round: Round): CatchUpWindow {
    const window = served(request, round);
    const state = this.members.get(member);
    if (state) state.next = window.through + 1;
    return window;
  }

  private parse(subject: string): Parsed | null {
    try {
      const { aggregate, id } = parseSubject(this.store.subjectPrefix, subject);
      return { aggregate, hash: aggregateHash(id) };
    } catch {
      // Not an event subject: no runner applies it (as no consumer filter would deliver it).
      return null;
    }
  }
}

/** The messages of a round that `request` asks for. */
function served(request: CatchUpRequest, round: Round): CatchUpWindow {
  const items: BatchItem[] = [];
  for (const aggregate of request.aggregates) {
    for (const { item, hash } of round.byAggregate.get(aggregate) ?? []) {
      if (item.sequence >= request.from && inPartition(request, hash)) items.push(item);
    }
  }
  if (request.aggregates.size > 1) items.sort((a, b) => a.sequence - b.sequence);
  return { items, through: Math.max(request.from - 1, round.until), end: round.end };
}

/** Whether a runner applies the message (see partitionOf). */
function applies(reader: CatchUpReader, message: Parsed): boolean {
  return reader.aggregates.has(message.aggregate) && inPartition(reader, message.hash);
}

function inPartition({ partition }: CatchUpReader, hash: number): boolean {
  return !partition || partition.count === 1 || hash % partition.count === partition.index;
}
