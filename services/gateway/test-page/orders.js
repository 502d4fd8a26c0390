/**
 * The orders panel: each order's timeline as the provider's webhooks move it, and the shopper's
 * approval of a payment. The frontend's wallet signs the order's serializedTransaction and sends
 * it; here the provider stand-in's approval route does what that signature sets off at the
 * provider (payment, then shipping and delivery on the stand-in's schedule).
 */
import { el, usd } from './render.js';

const checkoutStages = [
  ['awaiting_approval', 'Awaiting approval'],
  ['payment_confirmed', 'Payment confirmed'],
  ['in_progress', 'In progress'],
  ['delivered', 'Delivered'],
];
const depositStages = [
  ['in_progress', 'Crediting'],
  ['delivered', 'Credited'],
];

export const isOpen = (order) => order.status !== 'delivered' && order.status !== 'cancelled';

const time = (iso) => new Date(iso).toLocaleTimeString();

function timeline(order) {
  const reached = new Map(order.timeline.map((entry) => [entry.status, entry]));
  const cancelled = reached.get('cancelled');
  const all = order.type === 'deposit' ? depositStages : checkoutStages;
  // Webhooks out of order can skip a stage's event; a later stage reached means it was passed.
  const furthest = Math.max(...all.map(([status], index) => (reached.has(status) ? index : -1)));
  const stages = all.filter(([status], index) => !cancelled || reached.has(status) || index <= furthest);
  return el(
    'ol',
    { class: 'timeline' },
    stages.map(([status, label], index) => {
      const entry = reached.get(status);
      return el(
        'li',
        { class: entry || index <= furthest ? 'reached' : undefined, 'data-stage': status },
        entry ? `${label} · ${time(entry.at)}` : label,
      );
    }),
    cancelled
      ? el(
          'li',
          { class: 'cancelled reached', 'data-stage': 'cancelled' },
          `Cancelled: ${cancelled.reason ?? ''}`,
        )
      : undefined,
  );
}

export function renderOrders(orders, actions) {
  return orders.map((order) =>
    el(
      'li',
      { id: `order-${order.orderId}`, 'data-order-id': order.orderId, 'data-status': order.status },
      el(
        'div',
        { class: 'name' },
        order.type === 'deposit'
          ? `Deposit of ${order.quote?.totalPrice.amount ?? '?'} USDC`
          : `${order.item?.productName ?? 'Order'} · ${order.item ? usd(order.item.price) : ''}`,
      ),
      order.item ? el('div', { class: 'meta' }, `size ${order.item.size} · ${order.item.color}`) : undefined,
      timeline(order),
      order.status === 'awaiting_approval' && order.type === 'checkout'
        ? el(
            'button',
            { type: 'button', class: 'approve', onclick: (event) => actions.approve(order, event.target) },
            'Approve payment',
          )
        : undefined,
    ),
  );
}

/** Approves as the shopper's wallet would: the provider stand-in takes it from there. */
export async function approveAtProvider(providerUrl, order) {
  if (!providerUrl) throw new Error('no payment provider is configured on this gateway');
  const response = await fetch(
    `${providerUrl}/sandbox/orders/${encodeURIComponent(order.providerOrderId)}/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    },
  );
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}));
    throw new Error(answer.message ?? `the provider refused the approval (${response.status})`);
  }
}
