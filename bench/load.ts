import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadResult {
  /** Milliseconds per operation that succeeded. */
  latencies: number[];
  errors: number;
  firstError?: string;
  seconds: number;
}

/**
 * Closed loop: `concurrency` workers each run `operation` back to back for `seconds`. An
 * operation returns the latencies of the commands it ran (a write step may be two commands).
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  operation: (worker: number, iteration: number) => Promise<number[]>,
  /** Ends the loop before `seconds` once it answers true. */
  enough: () => boolean = () => false,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline && !enough(); i++) {
        try {
          latencies.push(...(await operation(worker, i)));
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  return { latencies, errors, firstError, seconds: (performance.now() - started) / 1000 };
}

/**
 * Open loop at a fixed rate: an operation starts every 1/rate seconds whether or not earlier
 * ones finished, so a slow answer cannot lower the offered load (no coordinated omission).
 */
export async function fixedRate(
  perSecond: number,
  seconds: number,
  operation: (n: number) => Promise<number[]>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const total = Math.round(perSecond * seconds);
  const interval = 1000 / perSecond;
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + n * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    running.push(
      operation(n).then(
        (ms) => void latencies.push(...ms),
        (error: unknown) => {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
        },
      ),
    );
  }
  await Promise.all(running);
  return { latencies, errors, firstError, seconds: (performance.now() - started) / 1000 };
}
