/** Every provider call a test can make fail; the names match `ProviderError.operation` in @shop/provider. */
export const providerOperations = [
  'jwks',
  'auth.refresh',
  'wallets.create',
  'wallets.get',
  'wallets.balances',
  'wallets.fund',
  'orders.create',
  'orders.get',
] as const;
export type ProviderOperation = (typeof providerOperations)[number];

/**
 * Before the effect: `error` answers with a status, `hang` never answers (the caller's deadline).
 * After the effect (the request was handled, so the outcome is ambiguous to the caller):
 * `error-after` answers with a status anyway, `hang-after` never answers, `lost` cuts the
 * connection instead of answering, `late` answers only after `delayMs` (after the caller's
 * deadline, if it has one), and `garbled-after` answers with the status (a 2xx, say) and a body
 * that is not the call's answer, as a provider that changed its format would.
 */
export const faultModes = [
  'error',
  'hang',
  'error-after',
  'hang-after',
  'lost',
  'late',
  'garbled-after',
] as const;
export type FaultMode = (typeof faultModes)[number];

export const afterEffect = (mode: FaultMode): boolean =>
  mode === 'error-after' ||
  mode === 'hang-after' ||
  mode === 'lost' ||
  mode === 'late' ||
  mode === 'garbled-after';

export interface FaultOptions {
  times?: number;
  mode?: FaultMode;
  status?: number;
  delayMs?: number;
}

export interface Fault {
  mode: FaultMode;
  status: number;
  delayMs: number;
}

export class FaultInjector {
  private readonly pending = new Map<ProviderOperation, Fault & { remaining: number }>();

  failNext(operation: ProviderOperation, options: FaultOptions = {}): void {
    const { times = 1, mode = 'error', status = 500, delayMs = 5_000 } = options;
    this.pending.set(operation, { mode, status, delayMs, remaining: times });
  }

  take(operation: ProviderOperation): Fault | undefined {
    const fault = this.pending.get(operation);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.pending.delete(operation);
    return { mode: fault.mode, status: fault.status, delayMs: fault.delayMs };
  }

  clear(): void {
    this.pending.clear();
  }
}
