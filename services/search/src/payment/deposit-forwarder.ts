import { setTimeout as sleep } from 'node:timers/promises';
import { ConfirmationDelivery, confirmationVerdict } from '@shop/domain';

export interface DepositConfirmation {
  userId: string;
  payer: string;
  /** MIST as digits. */
  amount: string;
  transactionHash: string;
  network: string;
  /** The coin type paid. */
  currency: string;
}

export interface DepositForwarderOptions {
  backendUrl: string;
  attempts?: number;
  attemptTimeoutMs?: number;
  baseDelayMs?: number;
}

function codeOf(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string'
      ? body.code
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Delivers a verified payment to the backend: POST /api/deposit/{userId}/{payer}/confirm with the
 * shared secret, retried with exponential backoff. 2xx and 409 DEPOSIT_ALREADY_CREDITED acknowledge
 * it; 409 DEPOSIT_IN_PROGRESS does not (the backend is still crediting it: ask again). A refusal
 * is final only by its code (`confirmationVerdict`); one that can change leaves the payment
 * PENDING for the reconciler. The defaults keep the worst case (4 × 5 s plus 1.75 s of backoff)
 * well inside the 60 s lock.
 */
export class DepositForwarder {
  private readonly attempts: number;
  private readonly attemptTimeoutMs: number;
  private readonly baseDelayMs: number;

  constructor(private readonly options: DepositForwarderOptions) {
    this.attempts = options.attempts ?? 4;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 5_000;
    this.baseDelayMs = options.baseDelayMs ?? 250;
  }

  async forward(confirmation: DepositConfirmation, webhookSecret: string): Promise<ConfirmationDelivery> {
    const base = this.options.backendUrl.replace(/\/+$/, '');
    const url = `${base}/api/deposit/${encodeURIComponent(confirmation.userId)}/${encodeURIComponent(confirmation.payer)}/confirm`;
    const body = JSON.stringify({
      amount: confirmation.amount,
      transactionHash: confirmation.transactionHash,
      network: confirmation.network,
      currency: confirmation.currency,
    });
    let reason = '';
    let backendStatus: number | null = null;
    let attempt = 0;
    while (attempt < this.attempts) {
      attempt += 1;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-secret': webhookSecret },
          body,
          signal: AbortSignal.timeout(this.attemptTimeoutMs),
        });
        const text = await response.text();
        const verdict = confirmationVerdict(response.status, codeOf(text));
        if (verdict === 'acknowledged') {
          return { acknowledged: true, backendStatus: response.status, attempts: attempt };
        }
        backendStatus = response.status;
        reason = `the backend answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
        if (verdict === 'refused') {
          return {
            acknowledged: false,
            refused: true,
            reason: reason.slice(0, 500),
            backendStatus: response.status,
            attempts: attempt,
          };
        }
        if (verdict === 'later') break;
      } catch (error) {
        backendStatus = null;
        reason = `the backend could not be reached: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (attempt < this.attempts) await sleep(this.baseDelayMs * 2 ** (attempt - 1));
    }
    return {
      acknowledged: false,
      refused: false,
      reason: reason.slice(0, 500),
      backendStatus,
      attempts: attempt,
    };
  }
}
