import { z } from 'zod';
import { apiSchema } from '@shop/http';
import { cartItemSchema } from './cart-item.schema';

export const cartListSchema = apiSchema('CartList', z.object({ items: z.array(cartItemSchema) }));

/** The on-chain cart routes' answers; in database mode they say there is no on-chain cart. */
export const cartInitSchema = apiSchema('CartInit', z.object({ created: z.boolean(), message: z.string() }));
export const cartAddressSchema = apiSchema(
  'CartAddress',
  z.object({ cartAddress: z.string().nullable(), exists: z.boolean() }),
);
export const cartInfoSchema = apiSchema(
  'CartInfo',
  z.object({ cartAddress: z.string(), itemCount: z.number().int(), exists: z.boolean() }),
);
