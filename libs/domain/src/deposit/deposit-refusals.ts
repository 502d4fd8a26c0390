import { DomainError } from '../domain-error';

/**
 * Why a verified payment is refused a credit, by the code the search service tells them apart
 * by. The message stays the spec's text; the code says whether asking again can ever help.
 */
const code = {
  userNotFound: 'USER_NOT_FOUND',
  walletNotProvisioned: 'WALLET_NOT_PROVISIONED',
  invalidCoinType: 'INVALID_COIN_TYPE',
  walletMismatch: 'WALLET_MISMATCH',
  invalidAmount: 'INVALID_AMOUNT',
  claimedByAnother: 'CONFLICT',
} as const;

/** No such user: the paying wallet, created only once a user registers, cannot be theirs. */
export const depositUserNotFound = () =>
  new DomainError('invalid', code.userNotFound, 'Wallet not provisioned');

/** The user's wallets are not provisioned yet (or their provisioning failed and is retried at sign-in). */
export const depositWalletNotProvisioned = () =>
  new DomainError('invalid', code.walletNotProvisioned, 'Wallet not provisioned');

export const depositInvalidCoinType = () =>
  new DomainError('invalid', code.invalidCoinType, 'Invalid coin type');

/** The payment came from, or went to, an address that is not the user's own wallet. */
export const depositWalletMismatch = (message: string) =>
  new DomainError('invalid', code.walletMismatch, message);

export const depositInvalidAmount = (message: string) =>
  new DomainError('invalid', code.invalidAmount, message);

/** The digest was claimed by another user first. */
export const depositClaimedByAnother = (message: string) =>
  new DomainError('conflict', code.claimedByAnother, message);

/**
 * Refusals that no later delivery of the same confirmation can turn into a credit: a user who
 * does not exist, a coin, an amount or a payer that is not right. Every other refusal (a wallet
 * still being provisioned, a body one side does not accept yet) can change, so it is asked again.
 */
export const finalDepositRefusals: ReadonlySet<string> = new Set([
  code.userNotFound,
  code.invalidCoinType,
  code.walletMismatch,
  code.invalidAmount,
  code.claimedByAnother,
]);
