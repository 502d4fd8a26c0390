import type { ProductSummary } from '@shop/product-search';
import type { CartItemView, OrderView, SearchProductsInput, ShoppingToolName } from '../tool-schemas';
import { broaderSearch } from './broader-search';
import type { VariantWish } from './intent';
import { formatUsd } from './money';
import type { TargetProblem } from './resolve-target';
import { colorMatches, sizeKey, type VariantProblem } from './resolve-variant';
import type { ComparisonSnapshot, SearchSnapshot } from './tool-results';

/**
 * Everything the offline model says. Product names, prices, ratings, sizes and links come only from the
 * tool results passed in; the fixed sentences carry no product facts.
 */

const TOOL_ACTIONS: Record<ShoppingToolName, string> = {
  searchProducts: 'search the catalogue',
  getProductDetails: 'load the product details',
  viewCart: 'load your cart',
  addToCart: 'add it to your cart',
  removeFromCart: 'remove it from your cart',
  checkout: 'start the checkout',
  rememberMemory: 'save that preference',
  getOrders: 'look up your orders',
  compareProducts: 'compare those products',
  recallMemories: 'look up what you asked me to remember',
};

/** What the shopper can do next after a failure, by the failure's code, else by the tool that failed. */
const NEXT_STEP_BY_CODE: Record<string, string> = {
  InsufficientFundsError: 'Fund your wallet with USDC (a deposit), then ask me to check out again.',
  CheckoutNoWalletError: 'Your wallet is still being set up; try again in a minute.',
  CartDuplicateItemError:
    'It is already in your cart: say "show my cart" to see it, or pick another size or color.',
  CartFullError: 'Remove an item first, for example "remove the first item", then try again.',
  CartItemNotFoundError: 'Say "show my cart" to see what is in it now.',
  OrderNotFoundError: 'Say "show my orders" to see the orders you have.',
  PRODUCT_NOT_FOUND: 'Want me to search again?',
};
/** The code of a refusal that came as a thrown error's message only (tools that still throw). */
const CODE_BY_MESSAGE: readonly [RegExp, string][] = [
  [/too little USDC|insufficient funds/i, 'InsufficientFundsError'],
  [/already in the cart/i, 'CartDuplicateItemError'],
  [/cart already holds/i, 'CartFullError'],
  [/no such item in your cart|cart item not found/i, 'CartItemNotFoundError'],
  [/no such order/i, 'OrderNotFoundError'],
];
const codeOf = (error: string) => CODE_BY_MESSAGE.find(([pattern]) => pattern.test(error))?.[1];

const NEXT_STEP_BY_TOOL: Record<ShoppingToolName, string> = {
  searchProducts: 'Try again in a moment, or describe it another way.',
  getProductDetails: 'Want me to search for it again?',
  viewCart: 'Try again in a moment.',
  addToCart: 'Say "show my cart" to check it, or try another size or color.',
  removeFromCart: 'Say "show my cart" to see what is in it now.',
  checkout: 'Say "show my cart" to check the item, then try again.',
  rememberMemory: 'Try again in a moment; I can still help you shop meanwhile.',
  getOrders: 'Try again in a moment.',
  compareProducts: 'Want me to search again, or tell you more about one of them?',
  recallMemories: 'Try again in a moment, or tell me again and I will use it now.',
};

export const GREETING_REPLY =
  "Hi! I'm your shopping assistant. I can search for products, tell you more about them, manage your cart and check out. What are you looking for today?";
export const THANKS_REPLY = "You're welcome! Let me know if you'd like to find anything else.";
export const OFF_TOPIC_REPLY =
  'Sorry, I can only help with shopping: finding products, comparing them, managing your cart and checking out. What would you like to shop for?';
export const ASK_WHAT_TO_REMEMBER =
  'What would you like me to remember? For example: "remember that I prefer slim fit".';
export const ASK_WHAT_TO_SEARCH = 'What should I look for? Tell me a product, and any color, size or budget.';
export const GIFT_QUESTION_REPLY =
  'Happy to help with a gift! What do they like? For example coffee, running or hiking, and any budget.';

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const thousands = (count: number) => count.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** "(size M, Navy)"; the cart's "Default" placeholder is not worth saying. */
function variantOf(size: string | undefined, color: string | undefined): string {
  const sized = size && size !== 'Default' ? (/^one size$/i.test(size) ? size : `size ${size}`) : '';
  const parts = [sized, color && color !== 'Default' ? color : ''];
  const said = parts.filter(Boolean);
  return said.length > 0 ? ` (${said.join(', ')})` : '';
}

/** The search in words, without numbers: the price limits were the shopper's, not a result. */
function describeSearch(input: SearchProductsInput): string {
  const subject = input.query ? `"${input.query}"` : input.category ? input.category : 'your request';
  const details = [
    input.brand ? `from ${input.brand}` : '',
    input.color ? `in ${input.color}` : '',
    input.size ? `in size ${input.size}` : '',
    input.minPrice !== undefined || input.maxPrice !== undefined ? 'within your price range' : '',
  ].filter(Boolean);
  return [subject, ...details].join(' ');
}

function productLine(product: ProductSummary, position: number): string {
  const colors = product.colors?.length ? `, colors: ${product.colors.join(', ')}` : '';
  return `${position}. ${product.productName} - ${formatUsd(product.price)} (${product.brand}, rated ${product.rating}/5${colors})`;
}

/** What to try after a search found nothing: the broader search "yes" will run. */
function broaderOffer(input: SearchProductsInput): string {
  const broader = broaderSearch(input);
  if (!broader)
    return 'Try describing it another way, or browse a category: apparel, footwear or accessories.';
  const { loosened } = broader;
  return loosened.kind === 'filter'
    ? `Want me to search again without the ${loosened.name}?`
    : `Want me to search for "${loosened.query}" instead?`;
}

export function searchReply({ input, products, total }: SearchSnapshot): string {
  const described = describeSearch(input);
  const page = input.page ?? 1;
  if (products.length === 0) {
    return page > 1
      ? `There are no more results for ${described}.`
      : `I found no products matching ${described}. ${broaderOffer(input)}`;
  }
  const intro =
    page > 1
      ? `Here are ${products.length} more results for ${described}:`
      : total > products.length
        ? `I found ${plural(total, 'product')} for ${described}. Here are the first ${products.length}:`
        : `I found ${plural(total, 'product')} for ${described}:`;
  return [
    intro,
    '',
    ...products.map((product, index) => productLine(product, index + 1)),
    '',
    'Tell me which one you like, for example "add the first one in M" or "tell me more about the second one".',
  ].join('\n');
}

export function detailsReply(product: ProductSummary): string {
  return [
    `${product.productName} by ${product.brand} costs ${formatUsd(product.price)} at ${product.retailer.replace(/\.$/, '')}.`,
    `Rated ${product.rating}/5 from ${plural(product.reviewCount, 'review')}.`,
    ...(product.sizes?.length ? [`Sizes: ${product.sizes.join(', ')}.`] : []),
    ...(product.colors?.length ? [`Colors: ${product.colors.join(', ')}.`] : []),
    `Link: ${product.productUrl}`,
  ].join('\n');
}

export const PRODUCT_GONE_REPLY = "I couldn't find that product any more. Want me to search again?";

/** Added, and which size or colour was chosen where the product lacked the one asked for. */
export function addedReply(item: CartItemView, wish: VariantWish): string {
  const substitutes = [
    wish.size !== undefined && sizeKey(item.size) !== sizeKey(wish.size)
      ? `It doesn't come in size ${wish.size}, so I chose ${item.size}.`
      : '',
    wish.color !== undefined && !colorMatches(item.color, wish.color)
      ? `It doesn't come in ${wish.color}, so I chose ${item.color}.`
      : '',
  ].filter(Boolean);
  return [
    `Added ${item.productName}${variantOf(item.size, item.color)} to your cart for ${formatUsd(item.price)}.`,
    ...substitutes,
  ].join(' ');
}

export function cartReply(items: readonly CartItemView[]): string {
  if (items.length === 0) return "Your cart is empty. Tell me what you're looking for and I'll find it.";
  const total = items.reduce((sum, item) => sum + item.price, 0);
  return [
    `Your cart has ${plural(items.length, 'item')}:`,
    '',
    ...items.map(
      (item, index) =>
        `${index + 1}. ${item.productName}${variantOf(item.size, item.color)} - ${formatUsd(item.price)}`,
    ),
    '',
    `Total: ${formatUsd(total)}`,
  ].join('\n');
}

export const removedReply = (name: string) => `Removed ${name} from your cart.`;
export const ALREADY_EMPTY_REPLY = 'Your cart is already empty.';

export function emptiedReply(removed: readonly string[], failures: readonly string[]): string {
  if (failures.length === 0)
    return `Done: I removed ${plural(removed.length, 'item')}. Your cart is now empty.`;
  return [
    `I removed ${plural(removed.length, 'item')}, but ${plural(failures.length, 'removal')} failed:`,
    ...failures.map((failure) => `- ${failure}`),
  ].join('\n');
}

export function orderReply(
  order: { orderId: string; phase: string },
  item: CartItemView | undefined,
): string {
  const what = item
    ? `${item.productName}${variantOf(item.size, item.color)} (${formatUsd(item.price)})`
    : 'your item';
  return `I created order ${order.orderId} for ${what}. Its status is "${order.phase}": approve the payment with the one-time code the payment provider emails you.`;
}

export const rememberedReply = (fact: string) => `Got it, I'll remember: "${fact}".`;

/**
 * Any tool the gateway offers may fail, including ones this model never calls itself: what failed, why,
 * and what the shopper can do about it.
 */
export function failureReply(toolName: string, error: string, code?: string): string {
  const action = (TOOL_ACTIONS as Record<string, string | undefined>)[toolName] ?? 'finish that step';
  const known = code ?? codeOf(error);
  const next =
    (known === undefined ? undefined : NEXT_STEP_BY_CODE[known]) ??
    (NEXT_STEP_BY_TOOL as Record<string, string | undefined>)[toolName];
  const reason = error.trim().replace(/[.!]+$/, '');
  // A refusal that asks (which size or colour) is its own next step: the shopper answers it.
  if (reason.endsWith('?')) return `Sorry, I couldn't ${action}: ${reason}`;
  return next ? `Sorry, I couldn't ${action}: ${reason}. ${next}` : `Sorry, I couldn't ${action}: ${reason}.`;
}

export const unreadableReply = (toolName: ShoppingToolName) =>
  `Sorry, I couldn't make sense of what came back when I tried to ${TOOL_ACTIONS[toolName]}.`;

export const unavailableReply = (toolName: ShoppingToolName) =>
  `Sorry, I can't ${TOOL_ACTIONS[toolName]} right now.`;

export function productProblemReply(problem: TargetProblem): string {
  switch (problem.kind) {
    case 'nothing-to-point-at':
      return "I don't have any search results to pick from yet. What are you looking for?";
    case 'out-of-range':
      return `The last search showed only ${plural(problem.count, 'product')}. Which one do you mean?`;
    case 'ambiguous':
      return [
        'Which one do you mean?',
        '',
        ...problem.names.map((name, index) => `${index + 1}. ${name}`),
      ].join('\n');
    case 'not-found':
      return `I couldn't find "${problem.phrase}" among the products we looked at.`;
  }
}

/** Why a cart item could not be found; an empty cart is said in words, never listed. */
export function cartProblemReply(
  problem: TargetProblem,
  items: readonly CartItemView[],
  action: 'remove' | 'check out',
): string {
  const listing = items.map((item) => `- ${item.productName}${variantOf(item.size, item.color)}`);
  if (items.length === 0) return `Your cart is empty, so there is nothing to ${action}.`;
  switch (problem.kind) {
    case 'not-found':
      return [`There's no ${problem.phrase} in your cart. It has:`, '', ...listing].join('\n');
    case 'out-of-range':
      return `Your cart has only ${plural(problem.count, 'item')}. Which one do you mean?`;
    case 'nothing-to-point-at':
    case 'ambiguous':
      return ['Which item do you mean?', '', ...listing].join('\n');
  }
}

export function variantProblemReply(product: ProductSummary, problem: VariantProblem): string {
  switch (problem.kind) {
    case 'size-unavailable':
      return `${product.productName} doesn't come in size ${problem.wanted}. Available sizes: ${problem.available.join(', ')}.`;
    case 'color-unavailable':
      return `${product.productName} doesn't come in ${problem.wanted}. Available colors: ${problem.available.join(', ')}.`;
    case 'color-ambiguous':
      return `${product.productName} comes in several ${problem.wanted} shades: ${problem.options.join(', ')}. Which one would you like?`;
  }
}

const ASPECT_NAMES: Record<string, string> = {
  price: 'Price',
  rating: 'Rating',
  reviews: 'Reviews',
  sizes: 'Sizes',
  colors: 'Colors',
  brand: 'Brand',
  retailer: 'Retailer',
  category: 'Category',
};
const aspectName = (aspect: string) => ASPECT_NAMES[aspect] ?? aspect;

/** Which of the compared products answers "which is better?" (rating, then reviews) or "which is cheaper?". */
function verdict(products: readonly ProductSummary[], ask: 'better' | 'cheaper'): string {
  const ranked = products
    .map((product, index) => ({ product, index }))
    .sort((a, b) =>
      ask === 'cheaper'
        ? a.product.price - b.product.price || a.index - b.index
        : b.product.rating - a.product.rating ||
          b.product.reviewCount - a.product.reviewCount ||
          a.product.price - b.product.price,
    );
  const [best] = ranked;
  if (!best) return '';
  const { product } = best;
  return ask === 'cheaper'
    ? `The cheaper one is ${product.productName} at ${formatUsd(product.price)}.`
    : `I'd pick ${product.productName}: rated ${product.rating}/5 from ${plural(product.reviewCount, 'review')}, for ${formatUsd(product.price)}.`;
}

export function comparisonReply(
  { products, differences, shared }: ComparisonSnapshot,
  ask: 'better' | 'cheaper' | undefined,
): string {
  const together = products.length === 2 ? 'Both' : 'All';
  return [
    `Here is how they compare:`,
    '',
    ...products.map(
      (product, index) =>
        `${index + 1}. ${product.productName} - ${formatUsd(product.price)}, rated ${product.rating}/5 (${thousands(product.reviewCount)} reviews)`,
    ),
    '',
    ...(differences.length > 0
      ? [
          'Differences:',
          ...differences.map(({ aspect, values }) => `- ${aspectName(aspect)}: ${values.join(' vs ')}`),
        ]
      : ['They are alike in everything I can compare.']),
    ...(shared.length > 0
      ? [
          `${together} share: ${shared.map(({ aspect, value }) => `${aspectName(aspect).toLowerCase()} ${value}`).join('; ')}.`,
        ]
      : []),
    ...(ask ? ['', verdict(products, ask)] : []),
    '',
    comparisonHint(products),
  ].join('\n');
}

/** Ways to go on that fit these products: only a colour one of them alone offers, a size only if they have several. */
function comparisonHint(products: readonly ProductSummary[]): string {
  const shared = (products[0]?.sizes ?? []).filter((size) =>
    products.every(({ sizes }) => (sizes?.length ?? 0) > 1 && sizes?.includes(size)),
  );
  const size = shared.includes('M') ? 'M' : shared[0];
  const sized = size === undefined ? '' : ` in ${size}`;
  const prices = new Set(products.map(({ price }) => price));
  const colors = products.flatMap(({ colors }) => colors ?? []);
  const own = colors.find((color) => colors.filter((other) => other === color).length === 1);
  const ways = [
    ...(prices.size > 1 ? [`"add the cheaper one${sized}"`] : []),
    ...(own ? [`"add the ${own.toLowerCase()} one${sized}"`] : []),
    products.length === 2 ? '"tell me more about the other one"' : '"tell me more about the first one"',
  ];
  return `Say ${ways.slice(0, -1).join(', ')}${ways.length > 1 ? ' or ' : ''}${ways.at(-1)} to go on.`;
}

export const COMPARE_WHICH_REPLY =
  'Which products should I compare? For example "compare the first two" or "how do the first and the third differ?".';

function orderedWhat(order: OrderView): string {
  return order.item
    ? `${order.item.productName}${variantOf(order.item.size, order.item.color)} for ${formatUsd(order.item.price)}`
    : 'a wallet deposit';
}

/** The next thing to do about an order, where there is one. */
function orderNextStep(order: OrderView): string {
  if (order.type !== 'checkout') return '';
  if (order.status === 'awaiting_approval')
    return ' To go on, approve the payment with the one-time code the payment provider emailed you.';
  if (order.status === 'cancelled') return ' Want me to find it again?';
  return '';
}

function answerTo(order: OrderView, ask: 'shipped' | 'delivered' | undefined): string {
  if (ask === 'shipped')
    return order.status === 'in_progress' || order.status === 'delivered' ? 'Yes. ' : 'Not yet. ';
  if (ask === 'delivered') return order.status === 'delivered' ? 'Yes. ' : 'Not yet. ';
  return '';
}

export function ordersReply(
  orders: readonly OrderView[],
  total: number,
  request: { latest: boolean; about?: { phrase: string }; within?: string; ask?: 'shipped' | 'delivered' },
): string {
  if (orders.length === 0) {
    if (request.about)
      return `I couldn't find an order for "${request.about.phrase}"${request.within ? ` from ${request.within}` : ''}. Say "show my orders" to see them all.`;
    return request.within
      ? `You didn't place any orders ${request.within === 'today' || request.within === 'yesterday' ? request.within : `in ${request.within}`}. Say "show my orders" to see them all.`
      : "You don't have any orders yet. Want me to find something for you?";
  }
  const [latest] = orders;
  if ((request.latest || orders.length === 1) && latest) {
    const which = request.latest
      ? 'Your latest order is'
      : request.about || total > 1
        ? 'Your order is'
        : 'You have one order:';
    return `${answerTo(latest, request.ask)}${which} ${orderedWhat(latest)}. It is ${latest.statusText}.${orderNextStep(latest)}`;
  }
  return [
    `${request.about ? `Your orders for "${request.about.phrase}"` : `Your ${plural(total, 'order')}`}${request.within ? ` from ${request.within}` : ''}, newest first:`,
    '',
    ...orders.map((order, index) => `${index + 1}. ${orderedWhat(order)}: ${order.statusText}`),
  ].join('\n');
}

export const NOTHING_REMEMBERED_REPLY =
  'I don\'t have anything saved about that. Tell me, for example "remember that my dad wears size L", and I\'ll keep it for next time.';

export function recalledReply(facts: readonly string[]): string {
  const [only] = facts;
  if (facts.length === 0 || only === undefined) return NOTHING_REMEMBERED_REPLY;
  if (facts.length === 1) return `You told me: "${only}".`;
  return ['Here is what you told me:', ...facts.map((fact) => `- "${fact}"`)].join('\n');
}
