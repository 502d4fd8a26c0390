import { DEPOSIT_ALREADY_CREDITED, DEPOSIT_IN_PROGRESS } from '../deposit/deposit-decider';
import { finalDepositRefusals } from '../deposit/deposit-refusals';

/**
 * What the backend's answer to a deposit confirmation means for the payment: `acknowledged`
 * (credited, now or before), `retry` (busy or still crediting: ask again soon), `refused` (it can
 * never be credited to this user: FAILED, the digest released), or `later` (a refusal that can
 * change, or this service's own misconfiguration: stays PENDING for the reconciler).
 */
export type ConfirmationVerdict = 'acknowledged' | 'retry' | 'refused' | 'later';

/** Judged by the error code, not the status alone: a 400 may say "not yet" as well as "never". */
export function confirmationVerdict(status: number, code: string | undefined): ConfirmationVerdict {
  if (status >= 200 && status < 300) return 'acknowledged';
  if (code === DEPOSIT_ALREADY_CREDITED) return 'acknowledged';
  if (code === DEPOSIT_IN_PROGRESS || status >= 500 || status === 408 || status === 429) return 'retry';
  if (status >= 400 && status < 500 && code !== undefined && finalDepositRefusals.has(code)) return 'refused';
  return 'later';
}
