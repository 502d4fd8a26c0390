/**
 * How an injected fault looks to the client of POST /v1/chat/completions:
 * - `rate-limit`: 429 with `retry-after`, before any answer;
 * - `error`: an HTTP error status (500 unless told), before any answer;
 * - `hang`: the request is accepted and never answered, to exercise the caller's deadline;
 * - `cut`: the stream starts, then the connection is cut after `afterChunks` chunks;
 * - `slow`: every chunk is held back `delayMs`.
 */
export type ModelFaultMode = 'rate-limit' | 'error' | 'hang' | 'cut' | 'slow';
export const modelFaultModes = ['rate-limit', 'error', 'hang', 'cut', 'slow'] as const;

export interface ModelFaultOptions {
  mode: ModelFaultMode;
  /** How many upcoming requests get the fault (1 unless told). */
  times?: number;
  /** `error` only. */
  status?: number;
  /** `rate-limit` only; 1 unless told. */
  retryAfterSeconds?: number;
  /** `cut` only: chunks sent before the cut, counted from the end when negative; half unless told. */
  afterChunks?: number;
  /** `slow` only. */
  delayMs?: number;
  /** Only streamed requests (true) or only non-streamed ones (false); any when unset. */
  stream?: boolean;
  /** Matching requests let through before the fault applies, e.g. 1 to fail an agent's second step. */
  skip?: number;
}

export type ModelFault = Omit<ModelFaultOptions, 'times' | 'skip'>;

/** Faults for upcoming requests, taken in the order they were asked for. */
export class FaultInjector {
  private pending: (Omit<ModelFaultOptions, 'times'> & { remaining: number; skipped: number })[] = [];

  failNext({ times = 1, ...fault }: ModelFaultOptions): void {
    if (!Number.isInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    this.pending.push({ ...fault, remaining: times, skipped: 0 });
  }

  take(stream: boolean): ModelFault | undefined {
    const next = this.pending.find((fault) => fault.stream === undefined || fault.stream === stream);
    if (!next) return undefined;
    if (next.skipped < (next.skip ?? 0)) {
      next.skipped += 1;
      return undefined;
    }
    next.remaining -= 1;
    if (next.remaining <= 0) this.pending = this.pending.filter((fault) => fault !== next);
    const { remaining: _remaining, skipped: _skipped, skip: _skip, ...fault } = next;
    return fault;
  }

  clear(): void {
    this.pending = [];
  }
}
