import { ProviderAnswer, refusedByProvider } from '../provider-answer';

/** The open checkout of a cart item: the order id its provider order is created under. */
export interface CheckoutReservation {
  orderId: string;
  startedAt: number;
  /**
   * The provider's answer to this order's creation said neither yes nor no: the order may exist
   * at the provider, so it is resumed under the same order id (its idempotency key), never
   * replaced by a new one.
   */
  inDoubt: boolean;
}

/** A reservation older than this without its order was left by a crashed request: resume it. */
export const ABANDONED_RESERVATION_MS = 60_000;

/**
 * Whether a checkout of the item may place the reservation's order now: when its last attempt
 * ended in doubt, or when the request that made it is presumed dead. Otherwise that request is
 * still waiting for the provider, and a second caller is told the checkout is in progress.
 */
export function resumesNow(reservation: CheckoutReservation, now: number): boolean {
  return reservation.inDoubt || now - reservation.startedAt >= ABANDONED_RESERVATION_MS;
}

/**
 * What came back from the provider's order creation when it gave no order to place: an answer
 * that is not an order, or a readable order nobody can pay (the payer's USDC falls short, no
 * payment was prepared).
 */
export type OrderCreationFailure = ProviderAnswer | { answer: 'unpayable' };

/**
 * Whether the failure ends the reservation, so a later checkout starts a new order under a new
 * key. An order nobody can pay does (its key would only ever give the same answer). A 4xx
 * refusal does only while no earlier attempt is in doubt: a provider may refuse a repeat before
 * it looks at the key (a body it no longer accepts, say), which says nothing of the order the
 * earlier attempt may have made. Everything else may have created the order: it is kept.
 */
export function releasesReservation(
  reservation: CheckoutReservation,
  failure: OrderCreationFailure,
): boolean {
  if (failure.answer === 'unpayable') return true;
  return refusedByProvider(failure) && !reservation.inDoubt;
}
