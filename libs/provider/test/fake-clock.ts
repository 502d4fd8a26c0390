import { vi } from 'vitest';

/**
 * Puts the client's clock under the test's control: its back-off timers, `performance.now`, and
 * the `AbortSignal.timeout` deadline, which Node runs on internal timers fake timers cannot reach.
 * Time then passes only when the test advances it, so "still waiting" and "gave up" are exact.
 */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms) => {
    const controller = new AbortController();
    setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      ms,
    );
    return controller.signal;
  });
}

export function restoreRealClock(): void {
  vi.useRealTimers();
  vi.restoreAllMocks();
}
