import { ContractEvent } from '@shop/chain';
import { ChainEvent } from '@shop/contracts';

type Observed = Extract<ChainEvent, { type: 'ChainEventObserved' }>['data'];

/** A contract event as stored in the stream: plain JSON, amounts as decimal strings. */
export function chainEventRecord(event: ContractEvent): Observed {
  const base = {
    txDigest: event.txDigest,
    eventSeq: event.id.eventSeq,
    sender: event.sender,
    timestampMs: event.timestampMs,
    user: null,
    cartId: null,
    itemId: null,
    orderId: null,
    product: null,
    type: null,
  };
  switch (event.kind) {
    case 'CartCreated':
      return { ...base, kind: event.kind, user: event.user, cartId: event.cartId };
    case 'CartItemAdded':
      return {
        ...base,
        kind: event.kind,
        user: event.user,
        cartId: event.cartId,
        itemId: event.itemId,
        product: { ...event.product, priceCents: event.product.priceCents.toString() },
      };
    case 'CartItemRemoved':
      return { ...base, kind: event.kind, user: event.user, cartId: event.cartId, itemId: event.itemId };
    case 'OrderCreated':
      return {
        ...base,
        kind: event.kind,
        user: event.user,
        cartId: event.cartId,
        itemId: event.itemId,
        orderId: event.orderId,
      };
    case 'Unknown':
      return { ...base, kind: event.kind, type: event.type };
  }
}

/** The subject id of one chain event: unique forever, so appending it at sequence 0 is idempotent. */
export const chainEventId = (event: ContractEvent) => `${event.txDigest}-${event.id.eventSeq}`;
