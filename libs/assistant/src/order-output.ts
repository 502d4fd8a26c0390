import type { OrderStatus } from '@shop/contracts';
import type { OrderView, ShoppingToolSuccess } from './tool-schemas';

/** An order as the orders read side answers it, before the words the tool adds. */
export type OrderRecord = Omit<OrderView, 'statusText'>;

export interface OrderPageRecord {
  orders: readonly OrderRecord[];
  total: number;
  page: number;
  limit: number;
}

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

export const orderStatusText = (type: OrderRecord['type'], status: OrderStatus) =>
  (type === 'deposit' ? DEPOSIT_WORDS : CHECKOUT_WORDS)[status];

/** What getOrders answers for a page of orders (one order is a page of one). */
export function getOrdersOutput(page: OrderPageRecord): ShoppingToolSuccess<'getOrders'> {
  return {
    success: true,
    ...page,
    orders: page.orders.map((order) => ({
      ...order,
      statusText: orderStatusText(order.type, order.status),
    })),
  };
}
