import type { OrderStatus } from '@shop/contracts';
import type { OrderView, ShoppingToolOutput } from './tool-schemas';

/** An order as the orders read side answers it, before the words and steps the tool adds. */
export type OrderRecord = Omit<OrderView, 'statusText' | 'timeline'>;

export interface OrderPageRecord {
  orders: readonly OrderRecord[];
  total: number;
  page: number;
  limit: number;
}

const CHECKOUT_STEPS: readonly [OrderStatus, string][] = [
  ['awaiting_approval', 'Placed, waiting for the payment to be approved'],
  ['payment_confirmed', 'Payment confirmed, being prepared'],
  ['in_progress', 'Shipped, on its way'],
  ['delivered', 'Delivered'],
];
const DEPOSIT_STEPS: readonly [OrderStatus, string][] = [
  ['in_progress', 'Being credited to your wallet'],
  ['delivered', 'Credited to your wallet'],
];

const CHECKOUT_WORDS: Record<OrderStatus, string> = {
  awaiting_approval: 'placed and waiting for you to approve the payment; it has not shipped yet',
  payment_confirmed: 'paid and being prepared by the retailer; it has not shipped yet',
  in_progress: 'shipped and on its way',
  delivered: 'delivered',
  cancelled: 'cancelled',
};
const DEPOSIT_WORDS: Record<OrderStatus, string> = {
  awaiting_approval: 'waiting to be credited',
  payment_confirmed: 'waiting to be credited',
  in_progress: 'being credited to your wallet',
  delivered: 'credited to your wallet',
  cancelled: 'failed; nothing was credited',
};

/**
 * The steps of an order from placed to delivered, from its status alone: the read side keeps where an
 * order is, not when it moved, so no step carries a time. A cancelled order shows the steps up to its
 * placing, then the cancellation.
 */
export function orderTimeline(type: OrderRecord['type'], status: OrderStatus): OrderView['timeline'] {
  const steps = type === 'deposit' ? DEPOSIT_STEPS : CHECKOUT_STEPS;
  if (status === 'cancelled') {
    const [first] = steps;
    return [
      ...(first ? [{ status: first[0], label: first[1], state: 'done' as const }] : []),
      { status: 'cancelled', label: 'Cancelled', state: 'current' },
    ];
  }
  const reached = steps.findIndex(([step]) => step === status);
  return steps.map(([step, label], index) => ({
    status: step,
    label,
    state: index < reached ? 'done' : index === reached ? 'current' : 'upcoming',
  }));
}

export const orderStatusText = (type: OrderRecord['type'], status: OrderStatus) =>
  (type === 'deposit' ? DEPOSIT_WORDS : CHECKOUT_WORDS)[status];

/** What getOrders answers for a page of orders (one order is a page of one). */
export function getOrdersOutput(page: OrderPageRecord): ShoppingToolOutput<'getOrders'> {
  return {
    success: true,
    ...page,
    orders: page.orders.map((order) => ({
      ...order,
      statusText: orderStatusText(order.type, order.status),
      timeline: orderTimeline(order.type, order.status),
    })),
  };
}
