import { DEPOSIT_ALREADY_CREDITED, DEPOSIT_IN_PROGRESS } from '../deposit/deposit-decider';
import { finalDepositRefusals } from '../deposit/deposit-refusals';

/**
 * What the backend's answer to a deposit confirmation means for the payment: `acknowledged`
 * (credited, now or before), `retry` (busy or still crediting: ask again soon), `refused` (it can
 * never be credited to this user: FAILED, the digest released), or `later` (a refusal that can
 * change, or this service's own misconfiguration: stays PENDING for the reconciler).
 */
export type ConfirmationVerdict = 'acknowledged' | 'retry' | 'refused' | 'later';

/**
 * Judged by the error code, not the status alone: a 400 may say "not yet" as well as "never".
 * Nor is a 2xx enough: only one whose body `acknowledges` this digest (the backend's deposit
 * result for it) is an acknowledgement. Any other (a proxy's page, another service answering at
 * BACKEND_URL, a body cut short) is asked again, under the same digest.
 */
export function confirmationVerdict(
  status: number,
  code: string | undefined,
  acknowledges: boolean,
): ConfirmationVerdict {
  if (status >= 200 && status < 300) return acknowledges ? 'acknowledged' : 'retry';
  if (code === DEPOSIT_ALREADY_CREDITED) return 'acknowledged';
  if (code === DEPOSIT_IN_PROGRESS || status >= 500 || status === 408 || status === 429) return 'retry';
  if (status >= 400 && status < 500 && code !== undefined && finalDepositRefusals.has(code)) return 'refused';
  return 'later';
}
