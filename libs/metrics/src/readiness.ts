/** One dependency a service needs to do its work; `check` rejects when it is not usable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export type CheckResult = { ok: true; latencyMs: number } | { ok: false; latencyMs: number; error: string };

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** A hung dependency must not hang the probe: the orchestrator's own timeout is a few seconds. */
const defaultTimeoutMs = 2000;

/** Runs every check at once; ready only when all pass. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = defaultTimeoutMs,
): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (c): Promise<[string, CheckResult]> => {
      const started = performance.now();
      const latencyMs = () => Math.round((performance.now() - started) * 10) / 10;
      try {
        await withTimeout(c.check(), timeoutMs);
        return [c.name, { ok: true, latencyMs: latencyMs() }];
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return [c.name, { ok: false, latencyMs: latencyMs(), error: message || 'failed' }];
      }
    }),
  );
  return { ready: results.every(([, r]) => r.ok), checks: Object.fromEntries(results) };
}

function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  // The check may still settle later; its outcome no longer matters.
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
