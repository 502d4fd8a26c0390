import { DepositEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';
import { depositClaimedByAnother } from './deposit-refusals';

export interface DepositState {
  status: 'none' | 'claimed' | 'credited' | 'failed';
  attempt: number;
  claimedAt: number | null;
  userId: string | null;
  evmAddress: string | null;
  usdmxAmount: string | null;
  usdcAmount: string | null;
  /** Why the last attempt failed for good, for the operator (and the user's next try). */
  failureReason: string | null;
}

export const initialDepositState = (): DepositState => ({
  status: 'none',
  attempt: 0,
  claimedAt: null,
  userId: null,
  evmAddress: null,
  usdmxAmount: null,
  usdcAmount: null,
  failureReason: null,
});

export interface ClaimDeposit {
  type: 'ClaimDeposit';
  userId: string;
  payerAddress: string;
  evmAddress: string;
  amountMist: string;
  usdcAmount: string;
  coinType: string;
  source: 'search-service' | 'verify';
  now: number;
}

export interface RecordDepositCredit {
  type: 'RecordDepositCredit';
  attempt: number;
  usdmxAmount: string;
  evmAddress: string;
  /** The 2xx body the provider funded with when it could not be read, as it came. */
  providerAnswer?: string;
}

export interface RecordDepositFailure {
  type: 'RecordDepositFailure';
  attempt: number;
  reason: string;
}

export type DepositCommand = ClaimDeposit | RecordDepositCredit | RecordDepositFailure;

/** The spec's message for a digest already used; the code tells a finished credit from one under way. */
const DEPOSIT_ALREADY_PROCESSED = 'Deposit already processed';

/** The two codes of a used digest that are not refusals: credited, or being credited. */
export const DEPOSIT_ALREADY_CREDITED = 'DEPOSIT_ALREADY_CREDITED';
export const DEPOSIT_IN_PROGRESS = 'DEPOSIT_IN_PROGRESS';

export const depositAlreadyCredited = () =>
  new DomainError('conflict', DEPOSIT_ALREADY_CREDITED, DEPOSIT_ALREADY_PROCESSED);

export const depositInProgress = () =>
  new DomainError('conflict', DEPOSIT_IN_PROGRESS, DEPOSIT_ALREADY_PROCESSED);

/**
 * The provider idempotency key of a deposit's funding call: one per digest for its whole life,
 * so a repeat after an ambiguous outcome (a timeout, a lost answer) can never fund it twice.
 */
export const depositFundingKey = (txDigest: string): string => `deposit:${txDigest}`;

function claimDeposit(command: ClaimDeposit, state: DepositState): DepositEvent[] {
  if (state.status === 'credited') throw depositAlreadyCredited();
  if (state.userId && state.userId !== command.userId) {
    throw depositClaimedByAnother(DEPOSIT_ALREADY_PROCESSED);
  }
  if (state.status === 'claimed') throw depositInProgress();
  const { type: _type, now, ...claim } = command;
  return [
    {
      type: 'DepositClaimed',
      data: { ...claim, attempt: state.attempt + 1, claimedAt: new Date(now).toISOString() },
    },
  ];
}

function recordDepositCredit(command: RecordDepositCredit, state: DepositState): DepositEvent[] {
  // Every attempt funds under the same key, so a success of any attempt is the deposit's.
  if (state.status === 'credited' || state.status === 'none') return [];
  return [
    {
      type: 'DepositCredited',
      data: {
        attempt: command.attempt,
        usdmxAmount: command.usdmxAmount,
        evmAddress: command.evmAddress,
        ...(command.providerAnswer === undefined
          ? {}
          : { providerAnswer: command.providerAnswer.slice(0, 1000) }),
      },
    },
  ];
}

function recordDepositFailure(command: RecordDepositFailure, state: DepositState): DepositEvent[] {
  if (state.status !== 'claimed' || command.attempt !== state.attempt) return [];
  return [
    {
      type: 'DepositCreditFailed',
      data: { attempt: command.attempt, reason: command.reason.slice(0, 1000) },
    },
  ];
}

/**
 * One deposit per digest on `deposit.<txDigest>`: claimed, then credited, or failed for a reason
 * the provider gave. A claim is owned by the crediting process until it has an outcome, so a
 * second claim is told "in progress"; a failed one can be claimed again (the digest is not
 * burned), and its funding repeats under the same key.
 */
export const depositDecider: Decider<DepositCommand, DepositEvent, DepositState> = {
  initialState: initialDepositState,

  decide(command, state) {
    switch (command.type) {
      case 'ClaimDeposit':
        return claimDeposit(command, state);
      case 'RecordDepositCredit':
        return recordDepositCredit(command, state);
      case 'RecordDepositFailure':
        return recordDepositFailure(command, state);
      default:
        return unhandledCommand(command);
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
          evmAddress: event.data.evmAddress,
          usdcAmount: event.data.usdcAmount,
          failureReason: null,
        };
      case 'DepositCredited':
        return { ...state, status: 'credited', usdmxAmount: event.data.usdmxAmount };
      case 'DepositCreditFailed':
        return { ...state, status: 'failed', failureReason: event.data.reason };
    }
  },
};
