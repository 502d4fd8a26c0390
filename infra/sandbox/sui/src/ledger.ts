import type {
  BalanceChange,
  SuiEvent,
  SuiObjectChange,
  TransactionBlockData,
  TransactionEffects,
} from '@mysten/sui/client';
import { ObjectStore } from './object-store';

/** Everything the stand-in knows about one transaction; rendered per request options. */
export interface TransactionRecord {
  digest: string;
  timestampMs: string;
  checkpoint: string;
  input: TransactionBlockData;
  signatures: string[];
  effects: TransactionEffects;
  events: SuiEvent[];
  balanceChanges: BalanceChange[];
  objectChanges: SuiObjectChange[];
}

export type UnstampedRecord = Omit<TransactionRecord, 'timestampMs' | 'checkpoint'>;

/**
 * The in-memory chain: objects at their latest version, executed transactions by digest, and
 * the event stream in execution order. Each transaction gets its own checkpoint.
 */
export class Ledger {
  readonly objects = new ObjectStore();
  private readonly transactions = new Map<string, TransactionRecord>();
  private readonly eventLog: SuiEvent[] = [];
  private lastCheckpoint = 0;

  transaction(digest: string): TransactionRecord | undefined {
    return this.transactions.get(digest);
  }

  events(): readonly SuiEvent[] {
    return this.eventLog;
  }

  /** Records a transaction as final; the caller has already applied its object writes. */
  append(record: UnstampedRecord): TransactionRecord {
    if (this.transactions.has(record.digest))
      throw new Error(`transaction ${record.digest} is already recorded`);
    const timestampMs = String(Date.now());
    this.lastCheckpoint += 1;
    const stamped: TransactionRecord = {
      ...record,
      timestampMs,
      checkpoint: String(this.lastCheckpoint),
      events: record.events.map((event, seq) => ({
        ...event,
        id: { txDigest: record.digest, eventSeq: String(seq) },
        timestampMs,
      })),
    };
    this.transactions.set(stamped.digest, stamped);
    this.eventLog.push(...stamped.events);
    return stamped;
  }
}
