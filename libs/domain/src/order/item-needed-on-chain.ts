import { OrderState } from './order-decider';

/**
 * Whether the order may still call the contract's checkout, which needs the item's object in
 * the contract's cart: until the order is cancelled or its contract checkout has an outcome. The
 * object of an item the user removed meanwhile stays on chain until then.
 */
export function itemNeededOnChain(order: OrderState): boolean {
  if (!order.exists || order.type !== 'checkout') return false;
  if (order.onChainDigest || order.onChainRefused) return false;
  return order.status !== 'cancelled';
}
