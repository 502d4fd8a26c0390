/**
 * How an injected fault looks to the client:
 * - `unavailable`: HTTP 503 before the request is handled (a proxy in front of a busy node);
 * - `disconnect`: the connection is cut before the request is handled;
 * - `lost-response`: the request is handled (a transaction executes), then the connection is
 *   cut before the answer is sent, so the client cannot know the outcome.
 */
export type FaultMode = 'unavailable' | 'disconnect' | 'lost-response';

export interface FaultOptions {
  mode?: FaultMode;
  /** Only requests for this JSON-RPC method; any method when unset. */
  method?: string;
}

interface FaultRule {
  mode: FaultMode;
  method: string | undefined;
  remaining: number;
}

/** Faults and latency to apply to upcoming requests, for resilience tests. */
export class FaultPlan {
  private rules: FaultRule[] = [];
  private readonly latency = new Map<string | undefined, number>();

  failNext(count: number, { mode = 'unavailable', method }: FaultOptions = {}): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError('count must be a non-negative integer');
    this.rules.push({ mode, method, remaining: count });
  }

  clear(): void {
    this.rules = [];
    this.latency.clear();
  }

  /** Delays every request (or one method's) by `ms` before handling it; 0 removes the delay. */
  setLatency(ms: number, { method }: { method?: string } = {}): void {
    if (ms > 0) this.latency.set(method, ms);
    else this.latency.delete(method);
  }

  latencyFor(method: string): number {
    return this.latency.get(method) ?? this.latency.get(undefined) ?? 0;
  }

  /** The fault to apply to this request, consuming one from the first matching rule. */
  take(method: string): FaultMode | null {
    const rule = this.rules.find(
      (candidate) => candidate.remaining > 0 && (candidate.method ?? method) === method,
    );
    if (!rule) return null;
    rule.remaining -= 1;
    this.rules = this.rules.filter((candidate) => candidate.remaining > 0);
    return rule.mode;
  }
}
