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

/** `error` answers with a status; `hang` never answers, to exercise the caller's deadline. */
export type FaultMode = 'error' | 'hang';

export interface FaultOptions {
  times?: number;
  mode?: FaultMode;
  status?: number;
}

export interface Fault {
  mode: FaultMode;
  status: number;
}

export class FaultInjector {
  private readonly pending = new Map<ProviderOperation, Fault & { remaining: number }>();

  failNext(operation: ProviderOperation, options: FaultOptions = {}): void {
    const { times = 1, mode = 'error', status = 500 } = options;
    this.pending.set(operation, { mode, status, remaining: times });
  }

  take(operation: ProviderOperation): Fault | undefined {
    const fault = this.pending.get(operation);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.pending.delete(operation);
    return { mode: fault.mode, status: fault.status };
  }

  clear(): void {
    this.pending.clear();
  }
}
