import { DepositEvent } from '@shop/contracts';
import { Decider } from '../decider';
import { DomainError } from '../domain-error';

export interface DepositState {
  status: 'none' | 'claimed' | 'credited' | 'failed';
  attempt: number;
  claimedAt: number | null;
  userId: string | null;
  usdmxAmount: string | null;
  usdcAmount: string | null;
}

export const initialDepositState: DepositState = {
  status: 'none',
  attempt: 0,
  claimedAt: null,
  userId: null,
  usdmxAmount: null,
  usdcAmount: null,
};

export interface ClaimDeposit {
  type: 'ClaimDeposit';
  userId: string;
  payerAddress: string;
  evmAddress: string;
  amountMist: string;
  usdcAmount: string;
  coinType: string;
  source: 'search-service' | 'verify';
  /** Decision time: a claim left without an outcome for this long is resumed, not refused. */
  now: number;
}

export interface RecordDepositCredit {
  type: 'RecordDepositCredit';
  attempt: number;
  usdmxAmount: string;
  evmAddress: string;
}

export interface RecordDepositFailure {
  type: 'RecordDepositFailure';
  attempt: number;
  reason: string;
}

export type DepositCommand = ClaimDeposit | RecordDepositCredit | RecordDepositFailure;

/** A claim with no outcome after this long was abandoned by a crashed process. */
export const STALE_CLAIM_MS = 120_000;

export const depositAlreadyProcessed = () =>
  new DomainError('conflict', 'CONFLICT', 'Deposit already processed');

/**
 * One deposit per digest on `deposit.<txDigest>`: claimed, then credited or failed. A
 * failed credit can be claimed again (the digest is not burned); a stale claim is resumed
 * under the same attempt, so the funding call repeats with the same idempotency key.
 */
export const depositDecider: Decider<DepositCommand, DepositEvent, DepositState> = {
  initialState: initialDepositState,

  decide(command, state) {
    switch (command.type) {
      case 'ClaimDeposit': {
        if (state.status === 'credited') throw depositAlreadyProcessed();
        if (state.status === 'claimed' && command.now - (state.claimedAt ?? 0) < STALE_CLAIM_MS) {
          throw depositAlreadyProcessed();
        }
        if (state.userId && state.userId !== command.userId) throw depositAlreadyProcessed();
        const { type: _type, now, ...claim } = command;
        const attempt = state.status === 'claimed' ? state.attempt : state.attempt + 1;
        return [
          { type: 'DepositClaimed', data: { ...claim, attempt, claimedAt: new Date(now).toISOString() } },
        ];
      }
      case 'RecordDepositCredit':
        if (state.status !== 'claimed' || command.attempt !== state.attempt) return [];
        return [
          {
            type: 'DepositCredited',
            data: {
              attempt: command.attempt,
              usdmxAmount: command.usdmxAmount,
              evmAddress: command.evmAddress,
            },
          },
        ];
      case 'RecordDepositFailure':
        if (state.status !== 'claimed' || command.attempt !== state.attempt) return [];
        return [
          {
            type: 'DepositCreditFailed',
            data: { attempt: command.attempt, reason: command.reason.slice(0, 1000) },
          },
        ];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'DepositClaimed':
        return {
          ...state,
          status: 'claimed',
          attempt: event.data.attempt,
          claimedAt: Date.parse(event.data.claimedAt),
          userId: event.data.userId,
          usdcAmount: event.data.usdcAmount,
        };
      case 'DepositCredited':
        return { ...state, status: 'credited', usdmxAmount: event.data.usdmxAmount };
      case 'DepositCreditFailed':
        return { ...state, status: 'failed' };
    }
  },
};
