import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
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

/** The part of the backend's deposit result that says it credited (or had credited) this digest. */
const acknowledgementSchema = z.object({ success: z.literal(true), txDigest: z.string() });

/** The error code of a refusal, and whether the body acknowledges `transactionHash`. */
function readAnswer(text: string, transactionHash: string): { code?: string; acknowledges: boolean } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { acknowledges: false };
  }
  const acknowledgement = acknowledgementSchema.safeParse(body);
  const code = z.object({ code: z.string() }).safeParse(body);
  return {
    ...(code.success ? { code: code.data.code } : {}),
    acknowledges: acknowledgement.success && acknowledgement.data.txDigest === transactionHash,
  };
}

/**
 * Delivers a verified payment to the backend: POST /api/deposit/{userId}/{payer}/confirm with the
 * shared secret, retried with exponential backoff. A 2xx whose body is the deposit result of this
 * digest (`success: true`, its `txDigest`) and 409 DEPOSIT_ALREADY_CREDITED acknowledge it; any
 * other 2xx does not (something else answered: ask again, as for 409 DEPOSIT_IN_PROGRESS, the
 * backend still crediting it). A refusal
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
        const answer = readAnswer(text, confirmation.transactionHash);
        const verdict = confirmationVerdict(response.status, answer.code, answer.acknowledges);
        if (verdict === 'acknowledged') {
          return { acknowledged: true, backendStatus: response.status, attempts: attempt };
        }
        backendStatus = response.status;
        const unacknowledged = response.ok ? ' without acknowledging the deposit' : '';
        reason = `the backend answered ${response.status}${unacknowledged}${text ? `: ${text.slice(0, 200)}` : ''}`;
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
