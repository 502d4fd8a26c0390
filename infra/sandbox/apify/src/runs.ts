import { createHash } from 'node:crypto';
import { generateListing, type ListingItem } from './listing-items';

export const TERMINAL_STATUSES = ['SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED-OUT'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type FailedStatus = Exclude<TerminalStatus, 'SUCCEEDED'>;
export type RunStatus = 'RUNNING' | TerminalStatus;

export interface RunInput {
  listingUrls: { url: string }[];
  maxProductResults?: number;
  [key: string]: unknown;
}

/** What the sandbox recorded about a started run, for tests to check what the client sent. */
export interface RunRecord {
  id: string;
  input: RunInput;
  timeoutSecs: number | undefined;
  maxItems: number | undefined;
  status: RunStatus;
}

export interface NextRun {
  status?: FailedStatus;
  durationMs?: number;
}

interface Run extends RunRecord {
  actId: string;
  datasetId: string;
  startedAt: Date;
  finishedAt: Date | null;
  statusMessage: string;
  finished: Promise<void>;
  finish(status: TerminalStatus, message: string): void;
}

const STATUS_MESSAGES: Record<TerminalStatus, string> = {
  SUCCEEDED: 'Finished! Total 1 requests: 1 succeeded, 0 failed.',
  FAILED: 'The Actor process exited with code 1',
  ABORTED: 'Run was aborted',
  'TIMED-OUT': 'Run timed out',
};

/** Platform-style 17-character ids, derived from a counter so every sandbox run is reproducible. */
function platformId(kind: string, n: number): string {
  return createHash('sha256').update(`${kind}:${n}`).digest('hex').slice(0, 17);
}

/**
 * The runs and datasets of one sandbox. A run is RUNNING for its duration, then ends SUCCEEDED with the
 * generated listing as its dataset, unless the next run was set to fail or it outlives its run timeout.
 */
export class RunStore {
  readonly actorId = platformId('actor', 0);
  readonly userId = platformId('user', 0);
  private readonly runs = new Map<string, Run>();
  private readonly datasets = new Map<string, ListingItem[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextRun: NextRun = {};
  private started = 0;

  constructor(private readonly defaultDurationMs: number) {}

  setNextRun(next: NextRun): void {
    this.nextRun = { ...this.nextRun, ...next };
  }

  start(input: RunInput, timeoutSecs: number | undefined, maxItems: number | undefined): Run {
    const { status: failure, durationMs = this.defaultDurationMs } = this.nextRun;
    this.nextRun = {};
    this.started += 1;
    const id = platformId('run', this.started);
    let markFinished!: () => void;
    const run: Run = {
      id,
      input,
      timeoutSecs,
      maxItems,
      actId: this.actorId,
      datasetId: platformId('dataset', this.started),
      status: 'RUNNING',
      statusMessage: 'Starting the crawler.',
      startedAt: new Date(),
      finishedAt: null,
      finished: new Promise((resolve) => (markFinished = resolve)),
      finish: (status, message) => {
        if (run.status !== 'RUNNING') return;
        run.status = status;
        run.statusMessage = message;
        run.finishedAt = new Date();
        this.datasets.set(run.datasetId, status === 'SUCCEEDED' ? this.scrape(input) : []);
        markFinished();
      },
    };
    this.runs.set(id, run);
    const timeoutMs = timeoutSecs ? timeoutSecs * 1000 : Infinity;
    const ending: TerminalStatus = durationMs > timeoutMs ? 'TIMED-OUT' : (failure ?? 'SUCCEEDED');
    this.after(Math.min(durationMs, timeoutMs), () => run.finish(ending, STATUS_MESSAGES[ending]));
    return run;
  }

  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  dataset(id: string): ListingItem[] | undefined {
    return this.datasets.get(id);
  }

  abort(run: Run): void {
    run.finish('ABORTED', STATUS_MESSAGES.ABORTED);
  }

  runsStarted(): number {
    return this.started;
  }

  lastRun(): RunRecord | undefined {
    const run = [...this.runs.values()].at(-1);
    return (
      run && {
        id: run.id,
        input: run.input,
        timeoutSecs: run.timeoutSecs,
        maxItems: run.maxItems,
        status: run.status,
      }
    );
  }

  /** Ends every run still going, so requests waiting on them return and the server can close. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const run of this.runs.values()) this.abort(run);
  }

  private after(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private scrape(input: RunInput): ListingItem[] {
    const items = input.listingUrls.flatMap(({ url }) => generateListing(url).items);
    return input.maxProductResults === undefined ? items : items.slice(0, input.maxProductResults);
  }
}
