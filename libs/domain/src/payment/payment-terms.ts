import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { PaymentFailureCode } from '@shop/contracts';

/** What a transaction must do to pay for a deposit. */
export interface PaymentTerms {
  network: string;
  merchant: string;
  coinType: string;
  /** In the coin's base units (MIST). */
  minimumAmount: bigint;
}

export interface ObservedBalanceChange {
  /** The owning address; null for balances held by shared or immutable objects. */
  owner: string | null;
  coinType: string;
  /** Signed, in base units: negative means sent. */
  amount: bigint;
}

/** A transaction as the chain reports it, reduced to what the terms are checked against. */
export interface ObservedTransaction {
  status: 'success' | 'failure';
  error: string | null;
  sender: string | null;
  balanceChanges: readonly ObservedBalanceChange[];
}

export type Assessment =
  | { ok: true; amount: bigint; payer: string; receiver: string; coinType: string }
  | { ok: false; code: PaymentFailureCode; reason: string; amount: bigint };

/** The chain spells one coin type with a short or a full package address; compare canonical forms. */
export function canonicalCoinType(coinType: string): string | null {
  try {
    return normalizeStructTag(coinType);
  } catch {
    return null;
  }
}

export const canonicalAddress = (address: string): string => normalizeSuiAddress(address).toLowerCase();

/**
 * Whether `transaction` pays `terms.merchant` at least `terms.minimumAmount` of `terms.coinType`.
 * The payer is the address whose balance of that coin went down the most (the sender when no
 * address paid it directly): the backend credits the deposit to that wallet.
 */
export function assessTransaction(transaction: ObservedTransaction, terms: PaymentTerms): Assessment {
  if (transaction.status !== 'success') {
    return {
      ok: false,
      code: 'TRANSACTION_FAILED',
      reason: `The transaction failed on chain: ${transaction.error ?? 'no reason given'}`.slice(0, 500),
      amount: 0n,
    };
  }
  const merchant = canonicalAddress(terms.merchant);
  const coinType = canonicalCoinType(terms.coinType);
  const owned = transaction.balanceChanges.filter(
    (change): change is ObservedBalanceChange & { owner: string } => change.owner !== null,
  );
  const received = owned.filter(
    (change) => canonicalAddress(change.owner) === merchant && change.amount > 0n,
  );
  if (received.length === 0) {
    return {
      ok: false,
      code: 'NO_PAYMENT_TO_MERCHANT',
      reason: `The transaction pays nothing to the merchant address ${merchant}`,
      amount: 0n,
    };
  }
  const inCoin = (change: ObservedBalanceChange) => canonicalCoinType(change.coinType) === coinType;
  const amount = received.filter(inCoin).reduce((sum, change) => sum + change.amount, 0n);
  if (amount === 0n) {
    const paidIn = [...new Set(received.map((change) => change.coinType))].join(', ');
    return {
      ok: false,
      code: 'WRONG_COIN_TYPE',
      reason: `The merchant was paid in ${paidIn}, not in ${coinType}`.slice(0, 500),
      amount: 0n,
    };
  }
  if (amount < terms.minimumAmount) {
    return {
      ok: false,
      code: 'AMOUNT_TOO_SMALL',
      reason: `The merchant received ${amount} MIST, below the minimum of ${terms.minimumAmount} MIST`,
      amount,
    };
  }
  const payer =
    owned
      .filter((change) => inCoin(change) && change.amount < 0n)
      .sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0))[0]?.owner ??
    transaction.sender;
  if (payer === null) {
    return {
      ok: false,
      code: 'UNKNOWN_PAYER',
      reason: 'The transaction names no address that paid it',
      amount,
    };
  }
  return { ok: true, amount, payer: canonicalAddress(payer), receiver: merchant, coinType: coinType! };
}
