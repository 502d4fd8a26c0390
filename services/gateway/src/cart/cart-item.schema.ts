import { z } from 'zod';
import { MAX_PRICE_CENTS } from '@shop/domain';
import { apiSchema } from '@shop/http';

export const cartItemSchema = apiSchema(
  'CartItem',
  z.object({
    id: z.uuid(),
    userId: z.uuid(),
    productId: z.string(),
    productName: z.string(),
    price: z.number().int().positive().describe('USD cents'),
    image: z.string(),
    size: z.string(),
    color: z.string(),
    productUrl: z.string(),
    retailer: z.string(),
    createdAt: z.string().describe('ISO 8601 UTC'),
  }),
);
export type CartItemResponse = z.infer<typeof cartItemSchema>;

/** Body shape only; the price and URL rules are the cart decider's (CartInvalidProductError). */
export const addCartItemBody = apiSchema(
  'AddCartItem',
  z.object({
    productId: z.string().min(1).max(255),
    productName: z.string().min(1).max(500),
    price: z.number().describe(`positive integer, USD cents, at most ${MAX_PRICE_CENTS}`),
    image: z.string().min(1).max(2048).describe('http(s) URL'),
    productUrl: z.string().min(1).max(2048).describe('http(s) URL'),
    retailer: z.string().min(1).max(255),
    size: z.string().max(50).optional().describe('default "Default"'),
    color: z.string().max(50).optional().describe('default "Default"'),
  }),
);
export type AddCartItemBody = z.infer<typeof addCartItemBody>;
