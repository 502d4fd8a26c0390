import { z } from 'zod';
import { defineEvent } from '../event-definition';

export const onChainProduct = z.object({
  productId: z.string(),
  productName: z.string(),
  priceCents: z.string().regex(/^\d+$/),
  imageUrl: z.string(),
  productUrl: z.string(),
  size: z.string(),
  color: z.string(),
  retailer: z.string(),
});

export const ChainEventObserved = defineEvent({
  type: 'ChainEventObserved',
  version: 1,
  aggregate: 'chain',
  description:
    'An event of the cart contract seen by the indexer; the aggregate id is `<txDigest>-<eventSeq>` and it is appended at sequence 0, so replaying the chain is harmless.',
  schema: z.object({
    kind: z.enum(['CartCreated', 'CartItemAdded', 'CartItemRemoved', 'OrderCreated', 'Unknown']),
    txDigest: z.string(),
    eventSeq: z.string(),
    sender: z.string(),
    timestampMs: z.number().nullable(),
    user: z.string().nullable(),
    cartId: z.string().nullable(),
    itemId: z.string().nullable(),
    orderId: z.string().nullable(),
    product: onChainProduct.nullable(),
    type: z.string().nullable(),
  }),
});

export const chainEvents = [ChainEventObserved] as const;
