import { CatchUpProgress } from '@shop/projections';
import { count, duration } from './format';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface PhaseStats {
  phase: string;
  messages: number;
  events: number;
  durationMs: number;
}

/** A terminal redraw costs little, but more than ten a second only flickers. */
const ttyIntervalMs = 100;
/** Log files and CI output get a line now and then, not a stream of carriage returns. */
const logIntervalMs = 5000;
const barWidth = 24;

/**
 * Shows how a rebuild is going: on a terminal one line redrawn in place with a bar, events/s
 * and the time left; elsewhere a plain line every few seconds. It also keeps, per phase, what
 * was read and how long it took, for the summary.
 */
export class ProgressReporter {
  private readonly stats: PhaseStats[] = [];
  private current: { stats: PhaseStats; started: number; last: CatchUpProgress | null } | null = null;
  private lastShown = 0;
  private lineShown = false;

  constructor(
    private readonly out: ProgressOutput,
    private readonly now: () => number = () => performance.now(),
  ) {}

  phase(phase: string): void {
    this.endPhase();
    const stats = { phase, messages: 0, events: 0, durationMs: 0 };
    this.stats.push(stats);
    this.current = { stats, started: this.now(), last: null };
    this.lastShown = this.out.isTTY ? 0 : this.now();
  }

  update(progress: CatchUpProgress): void {
    const current = this.current;
    if (!current) return;
    current.last = progress;
    current.stats.messages = progress.messages;
    current.stats.events = progress.events;
    const now = this.now();
    const interval = this.out.isTTY ? ttyIntervalMs : logIntervalMs;
    if (now - this.lastShown < interval && progress.sequence < progress.until) return;
    this.lastShown = now;
    const line = this.describe(progress, now - current.started);
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}`);
      this.lineShown = true;
    } else this.out.write(`${line}\n`);
  }

  /** A line of its own, above the progress line. */
  log(text: string): void {
    this.clearLine();
    this.out.write(`${text}\n`);
  }

  /** Ends the last phase and returns every phase's figures. */
  finish(): PhaseStats[] {
    this.endPhase();
    this.clearLine();
    return this.stats;
  }

  private endPhase(): void {
    if (this.current) this.current.stats.durationMs = this.now() - this.current.started;
    this.current = null;
  }

  private clearLine(): void {
    if (!this.lineShown) return;
    this.out.write('\r\x1b[2K');
    this.lineShown = false;
  }

  private describe(p: CatchUpProgress, elapsedMs: number): string {
    const total = Math.max(1, p.until - p.from + 1);
    const done = Math.min(total, p.sequence - p.from + 1);
    const fraction = done / total;
    const seconds = elapsedMs / 1000;
    const rate = seconds > 0 ? p.events / seconds : 0;
    const eta = done > 0 && seconds > 0 ? ((total - done) * seconds) / done : NaN;
    const position = `${count(p.sequence)}/${count(p.until)}`;
    const figures = `${count(Math.round(rate))} events/s, ETA ${duration(eta * 1000)}`;
    if (!this.out.isTTY)
      return `${this.current!.stats.phase}: sequence ${position} (${Math.floor(fraction * 100)}%), ${figures}`;
    const filled = Math.round(fraction * barWidth);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}`;
    return `${this.current!.stats.phase.padEnd(8)} [${bar}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${position}  ${figures}`;
  }
}
