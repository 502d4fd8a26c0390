import { OrderState } from './order-decider';

/**
 * Whether the order may still call the contract's checkout, which needs the item's object in
 * the contract's cart: until the order is cancelled or its contract checkout has an outcome. The
 * object of an item the user removed or ordered meanwhile stays on chain until then.
 */
export function itemNeededOnChain(order: OrderState): boolean {
  if (!order.exists || order.type !== 'checkout') return false;
  if (order.onChainDigest || order.onChainRefused) return false;
  return order.status !== 'cancelled';
}

/**
 * Whether the object of an item out of the cart (deleted by its user, or ordered) stays in the
 * contract's cart for the item's latest order: while that order may still check it out there, and
 * for an ordered item whose order was cancelled at payment, which puts the item back in the cart.
 * Otherwise the object leaves the chain, so the contract's cart holds the active items only.
 */
export function objectKeptForOrder(order: OrderState, ordered: boolean): boolean {
  if (itemNeededOnChain(order)) return true;
  return ordered && order.status === 'cancelled' && order.cancelledAt === 'payment';
}
