import { orderStatuses, orderSummarySchema } from '@shop/contracts';
import { productCardSchema, productSearchResultSchema } from '@shop/product-search';
import { SORT_OPTIONS } from '@shop/scraper';
import { z } from 'zod';
import { toolOutputSchema } from './tool-result';

/**
 * The chat agent's tools: names, descriptions, input schemas (what the model sends) and output schemas
 * (what each `execute` must return, and what the offline model reads back). The gateway builds its tools
 * from these with `tool({ ...SHOPPING_TOOLS.searchProducts, execute })`, so the model, the gateway and the
 * offline model can never disagree on a field.
 *
 * Prices: search filters are in USD (what shoppers say), everything else is integer USD cents (what the
 * cart stores), with the original backend's `priceFormatted` / `totalFormatted` beside them. A tool that
 * fails answers a failure result (see tool-result.ts), never throws.
 */

const filterText = z.string().trim().min(1).max(100);
const usd = z.number().nonnegative();

export const searchProductsInputSchema = z.object({
  query: z
    .string()
    .trim()
    .max(200)
    .describe('What the shopper looks for, without the filters below, e.g. "running shoes". May be empty.'),
  category: filterText.optional().describe('apparel, footwear or accessories'),
  brand: filterText.optional(),
  color: filterText.optional(),
  size: filterText.optional(),
  minPrice: usd.optional().describe('Lowest price in USD, e.g. 50'),
  maxPrice: usd.optional().describe('Highest price in USD, e.g. 79.99'),
  sortBy: z.enum(SORT_OPTIONS).optional(),
  page: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(50).optional(),
});
export type SearchProductsInput = z.infer<typeof searchProductsInputSchema>;

export const getProductDetailsInputSchema = z.object({
  productId: z.string().trim().min(1).max(255).describe('A productId returned by searchProducts'),
});
export type GetProductDetailsInput = z.infer<typeof getProductDetailsInputSchema>;

export const viewCartInputSchema = z.object({});
export type ViewCartInput = z.infer<typeof viewCartInputSchema>;

export const addToCartInputSchema = z.object({
  productId: z.string().min(1).max(255),
  productName: z.string().min(1).max(500),
  price: z.number().int().positive().describe('USD cents, exactly as the product was returned'),
  image: z.string(),
  productUrl: z.string(),
  retailer: z.string().min(1).max(255),
  size: z.string().max(50).optional().describe("One of the product's sizes"),
  color: z.string().max(50).optional().describe("One of the product's colors"),
});
export type AddToCartInput = z.infer<typeof addToCartInputSchema>;

export const removeFromCartInputSchema = z.object({
  itemId: z.uuid().describe('A cart item id from viewCart or addToCart'),
});
export type RemoveFromCartInput = z.infer<typeof removeFromCartInputSchema>;

export const checkoutInputSchema = z.object({
  cartItemId: z.uuid().describe('A cart item id from viewCart or addToCart'),
});
export type CheckoutInput = z.infer<typeof checkoutInputSchema>;

export const rememberMemoryInputSchema = z.object({
  fact: z
    .string()
    .trim()
    .min(3)
    .max(500)
    .describe('A lasting preference in the shopper\'s words, e.g. "I prefer slim fit"'),
});
export type RememberMemoryInput = z.infer<typeof rememberMemoryInputSchema>;

export const getOrdersInputSchema = z.object({
  orderId: z
    .uuid()
    .optional()
    .describe(
      'One order by the orderId a checkout or an earlier getOrders returned; omit for the latest orders',
    ),
  type: z
    .enum(['checkout', 'deposit'])
    .optional()
    .describe('checkout: purchases only; deposit: wallet top-ups only; omit for both'),
  status: z
    .enum(orderStatuses)
    .optional()
    .describe('Only orders in this status, e.g. delivered; omit for every status'),
  limit: z.number().int().min(1).max(20).optional().describe('How many of the newest orders, default 5'),
});
export type GetOrdersInput = z.infer<typeof getOrdersInputSchema>;

export const compareProductsInputSchema = z.object({
  productIds: z
    .array(z.string().trim().min(1).max(255))
    .min(2)
    .max(4)
    .describe(
      'Two to four productIds returned by searchProducts or getProductDetails, in the order to show them',
    ),
});
export type CompareProductsInput = z.infer<typeof compareProductsInputSchema>;

export const recallMemoriesInputSchema = z.object({
  question: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .describe('What the shopper asks about, in their words, e.g. "what size does my dad wear"'),
});
export type RecallMemoriesInput = z.infer<typeof recallMemoriesInputSchema>;

/** A cart item as GET /api/cart lists it (the owner's id left out: the model has no use for it). */
export const cartItemSchema = z.object({
  id: z.string(),
  productId: z.string(),
  productName: z.string(),
  price: z.number().int().describe('USD cents'),
  image: z.string(),
  size: z.string(),
  color: z.string(),
  productUrl: z.string(),
  retailer: z.string(),
  createdAt: z.string(),
});
export type CartItemView = z.infer<typeof cartItemSchema>;

/** A cart item in a tool's answer: as GET /api/cart lists it, and its price as the shopper reads it. */
export const cartItemOutputSchema = cartItemSchema.extend({
  priceFormatted: z.string().describe('e.g. "$79.99"'),
});
export type CartItemOutput = z.infer<typeof cartItemOutputSchema>;

/** Products come as cards (see productCardSchema), which the existing frontend also renders. */
export const searchProductsResultSchema = productSearchResultSchema.extend({
  products: z.array(productCardSchema),
});
export const searchProductsOutputSchema = toolOutputSchema(searchProductsResultSchema);
/**
 * The product itself, not wrapped: the frontend takes a result that holds no product list as one
 * product. An unknown id is a PRODUCT_NOT_FOUND failure, which has no `id` and so shows no card.
 */
export const getProductDetailsOutputSchema = toolOutputSchema(productCardSchema);
export const viewCartOutputSchema = toolOutputSchema(
  z.object({
    items: z.array(cartItemOutputSchema),
    total: z.number().int().describe('USD cents'),
    totalFormatted: z.string(),
    itemCount: z.number().int(),
  }),
);
export const addToCartOutputSchema = toolOutputSchema(
  z.object({ item: cartItemOutputSchema, message: z.string() }),
);
export const removeFromCartOutputSchema = toolOutputSchema(
  z.object({ itemId: z.string(), removed: z.literal(true), message: z.string() }),
);
/** POST /api/checkout's answer without `serializedTransaction`, which is for the wallet, not the model. */
export const checkoutOutputSchema = toolOutputSchema(
  z.object({
    orderId: z.string(),
    providerOrderId: z.string(),
    phase: z.string(),
    walletAddress: z.string(),
    message: z.string(),
  }),
);
/**
 * The name and shape the existing frontend shows a "memory stored" card for; `text` is the fact saved.
 * A failure keeps `text`, so its "memory save failed" card names the fact.
 */
export const rememberMemoryOutputSchema = toolOutputSchema(
  z.object({ text: z.string(), message: z.string() }),
);

/** An order as GET /api/orders lists it (the OrderSummary, timeline included), with its status in words. */
export const orderViewSchema = orderSummarySchema.extend({
  statusText: z.string().describe('the status in words, to tell the shopper'),
});
export type OrderView = z.infer<typeof orderViewSchema>;
export const getOrdersOutputSchema = toolOutputSchema(
  z.object({
    orders: z.array(orderViewSchema),
    total: z.number().int().describe('how many orders pass the filter in all; orders holds the newest'),
    page: z.number().int(),
    limit: z.number().int(),
  }),
);

/** One aspect of compared products: its value for each product, in the order the products are listed. */
export const comparedAspectSchema = z.object({ aspect: z.string(), values: z.array(z.string()) });
export const compareProductsOutputSchema = toolOutputSchema(
  z.object({
    products: z.array(productCardSchema),
    differences: z.array(comparedAspectSchema).describe('aspects whose values differ between the products'),
    shared: z
      .array(z.object({ aspect: z.string(), value: z.string() }))
      .describe('aspects every product has alike'),
  }),
);

export const recallMemoriesOutputSchema = toolOutputSchema(
  z.object({
    memories: z
      .array(z.object({ text: z.string(), relevance: z.number().nullable() }))
      .describe('what the shopper asked to be remembered, most relevant to the question first'),
  }),
);

export const SHOPPING_TOOLS = {
  searchProducts: {
    description:
      'Search the product catalogue. Put what the shopper wants in query and their constraints in the filters.',
    inputSchema: searchProductsInputSchema,
    outputSchema: searchProductsOutputSchema,
  },
  getProductDetails: {
    description: 'Get one product by the productId a search returned.',
    inputSchema: getProductDetailsInputSchema,
    outputSchema: getProductDetailsOutputSchema,
  },
  viewCart: {
    description: "List the items in the shopper's cart.",
    inputSchema: viewCartInputSchema,
    outputSchema: viewCartOutputSchema,
  },
  addToCart: {
    description:
      'Add a product to the cart, copying productId, productName, price, image, productUrl and retailer from a search or details result.',
    inputSchema: addToCartInputSchema,
    outputSchema: addToCartOutputSchema,
  },
  removeFromCart: {
    description: 'Remove one item from the cart by its cart item id.',
    inputSchema: removeFromCartInputSchema,
    outputSchema: removeFromCartOutputSchema,
  },
  checkout: {
    description:
      'Create a payment order for one cart item; the shopper then approves it with an emailed code.',
    inputSchema: checkoutInputSchema,
    outputSchema: checkoutOutputSchema,
  },
  rememberMemory: {
    description: 'Save a lasting shopper preference (fit, size, style, budget) for later conversations.',
    inputSchema: rememberMemoryInputSchema,
    outputSchema: rememberMemoryOutputSchema,
  },
  getOrders: {
    description:
      'The shopper\'s orders, newest first, or one order by orderId: what was bought, its status in words (statusText), the payment provider\'s phase and its timeline (each status it reached, with when). Use it for questions like "has my order shipped?", "what did I buy last week?" or "is the jacket delivered?"; match the product the shopper names against item.productName.',
    inputSchema: getOrdersInputSchema,
    outputSchema: getOrdersOutputSchema,
  },
  compareProducts: {
    description:
      'Put two to four products side by side: price, rating and reviews, sizes and colors offered, brand, retailer. Returns the products and which aspects differ. Use it when the shopper asks to compare or which one is better, with productIds from earlier results.',
    inputSchema: compareProductsInputSchema,
    outputSchema: compareProductsOutputSchema,
  },
  recallMemories: {
    description:
      'Look up what the shopper asked you to remember in any earlier chat (sizes, people, preferences), ranked for their question. Use it when they ask what they told you, e.g. "what size did I say my dad wears?", and the answer is not among the saved preferences above.',
    inputSchema: recallMemoriesInputSchema,
    outputSchema: recallMemoriesOutputSchema,
  },
} as const;

export type ShoppingToolName = keyof typeof SHOPPING_TOOLS;
export const SHOPPING_TOOL_NAMES = Object.keys(SHOPPING_TOOLS) as ShoppingToolName[];

export type ShoppingToolInput<N extends ShoppingToolName> = z.infer<
  (typeof SHOPPING_TOOLS)[N]['inputSchema']
>;
export type ShoppingToolOutput<N extends ShoppingToolName> = z.infer<
  (typeof SHOPPING_TOOLS)[N]['outputSchema']
>;
/** A tool's answer when it did what was asked: its output without the failure. */
export type ShoppingToolSuccess<N extends ShoppingToolName> = Extract<
  ShoppingToolOutput<N>,
  { success: true }
>;
