import { aggregateHash, AggregateName, parseSubject } from '@shop/contracts';
import { EventStore, RawCommit } from '@shop/eventstore';
import { BatchItem } from './batch-applier';
import { decodeBatchItems } from './decode-batch-items';

/** What one catching-up runner asks for: its messages in from..until. */
export interface CatchUpRequest {
  from: number;
  until: number;
  aggregates: ReadonlySet<AggregateName>;
  /** Of a partitioned projection: the partition whose aggregates it applies. */
  partition?: { index: number; count: number };
}

export interface CatchUpWindow {
  /** The runner's messages from `from` through `through`, decoded, in stream order. */
  items: BatchItem[];
  /** How far the read went for this runner (at most its `until`): its position may move there. */
  through: number;
}

export interface CatchUpReadsOptions {
  /** Stream messages one round reads at most: what its decoded window may hold in memory. */
  maxMessages?: number;
  /** A round waits this long for the other catching-up runners to ask (they are writing). */
  gatherMs?: number;
}

interface Waiting {
  request: CatchUpRequest;
  resolve(window: CatchUpWindow): void;
  reject(error: unknown): void;
}

/** A message's aggregate and id hash, read once however many runners are asked about it. */
interface Parsed {
  aggregate: AggregateName;
  hash: number;
}

/**
 * One stream read and one decode shared by the runners of a process that are catching up, the
 * way a rebuild reads the stream once for every projection: each runner reading its own
 * aggregates would have the server deliver, and this process decode, a message once per
 * projection that reads it (an account's commits are read by four). A round waits for every
 * member to ask (they ask again once their last window is written) or `gatherMs`, reads from
 * the lowest position asked for, decodes the messages some member applies, and hands each its
 * own. A member far ahead of the others gets an empty window until they reach it.
 */
export class CatchUpReads {
  private readonly members = new Set<object>();
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private readonly maxMessages: number;
  private readonly gatherMs: number;

  constructor(
    private readonly store: EventStore,
    options: CatchUpReadsOptions = {},
  ) {
    this.maxMessages = options.maxMessages ?? 20_000;
    this.gatherMs = options.gatherMs ?? 50;
  }

  /** A runner starts catching up: rounds wait for its requests too. */
  join(member: object): void {
    this.members.add(member);
  }

  /** A runner is done catching up (or stops): rounds no longer wait for it. */
  leave(member: object): void {
    this.members.delete(member);
    this.next();
  }

  read(request: CatchUpRequest): Promise<CatchUpWindow> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.reading || this.waiting.length === 0) return;
    if (this.waiting.length >= this.members.size) {
      void this.round();
      return;
    }
    this.timer ??= setTimeout(() => void this.round(), this.gatherMs);
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
      const until = Math.min(Math.max(...asked.map((w) => w.request.until)), from + this.maxMessages - 1);
      const raws: RawCommit[] = [];
      const parsed = new Map<number, Parsed>();
      for await (const raw of this.store.readRaw(from, until)) {
        const meta = this.parse(raw.subject);
        if (meta && asked.some((w) => wants(w.request, raw.sequence, meta))) {
          raws.push(raw);
          parsed.set(raw.sequence, meta);
        }
      }
      const decoded = await decodeBatchItems(this.store, raws);
      for (const { request, resolve } of asked) {
        const through = Math.max(request.from - 1, Math.min(request.until, until));
        resolve({
          items: decoded.filter(
            (item) => item.sequence <= through && wants(request, item.sequence, parsed.get(item.sequence)!),
          ),
          through,
        });
      }
    } catch (error) {
      for (const { reject } of asked) reject(error);
    } finally {
      this.reading = false;
      this.next();
    }
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

/** Whether the message at `sequence` is one the request asks for (see partitionOf). */
function wants(request: CatchUpRequest, sequence: number, message: Parsed): boolean {
  const { partition } = request;
  return (
    sequence >= request.from &&
    sequence <= request.until &&
    request.aggregates.has(message.aggregate) &&
    (!partition || partition.count === 1 || message.hash % partition.count === partition.index)
  );
}
