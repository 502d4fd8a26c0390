import type { ProductSummary } from '@shop/product-search';
import { TITLE_PROMPT_MARKER } from '../title-prompt';
import { TOOL_FAILURE_CODES } from '../tool-result';
import type { SearchProductsInput, ShoppingToolInput, ShoppingToolName } from '../tool-schemas';
import { broaderSearch } from './broader-search';
import type { Conversation, ToolExchange } from './conversation';
import { parseIntent, type Intent, type VariantWish } from './intent';
import * as reply from './replies';
import { resolveCartItem, resolveProduct } from './resolve-target';
import { resolveVariant } from './resolve-variant';
import { parseSearchRequest, RESULTS_PER_PAGE, type SearchRequest } from './search-request';
import { shoppingState, type ShoppingState } from './shopping-state';
import { titleFor } from './title-for';
import { readAdded, readDetails, readOrder, readRemembered, readSearch } from './tool-results';

export interface PlannedCall<N extends ShoppingToolName = ShoppingToolName> {
  toolName: N;
  input: ShoppingToolInput<N>;
}

/** One model step: either tool calls for the SDK to run, or the answer. */
export type Step = { kind: 'text'; text: string } | { kind: 'tool-calls'; calls: PlannedCall[] };

interface Context {
  conversation: Conversation;
  state: ShoppingState;
  /** Tools the caller offered on this call; the model never calls another. */
  offered: ReadonlySet<string>;
}

const say = (text: string): Step => ({ kind: 'text', text });

/** Key order differs between the input planned and the one the SDK validated; the content does not. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => [key, canonical(entry)]),
  );
}

const callKey = (toolName: string, input: unknown) => `${toolName}:${JSON.stringify(canonical(input))}`;

function call(context: Context, calls: PlannedCall[]): Step {
  const missing = calls.find(({ toolName }) => !context.offered.has(toolName));
  return missing ? say(reply.unavailableReply(missing.toolName)) : { kind: 'tool-calls', calls };
}

const one = <N extends ShoppingToolName>(context: Context, toolName: N, input: ShoppingToolInput<N>) =>
  call(context, [{ toolName, input } as PlannedCall]);

/** This request's latest successful exchange with a tool. */
function doneThisTurn(context: Context, toolName: ShoppingToolName): ToolExchange | undefined {
  return context.conversation.current.findLast(
    (exchange) => exchange.toolName === toolName && exchange.outcome?.ok === true,
  );
}

function addToCartCall(context: Context, product: ProductSummary, wish: VariantWish): Step {
  const variant = resolveVariant(product, wish);
  if (!variant.ok) return say(reply.variantProblemReply(product, variant.problem));
  return one(context, 'addToCart', {
    productId: product.productId,
    productName: product.productName,
    price: product.price,
    image: product.image,
    productUrl: product.productUrl,
    retailer: product.retailer,
    ...(variant.size !== undefined && { size: variant.size }),
    ...(variant.color !== undefined && { color: variant.color }),
  });
}

/** The answer to this request's search, once it ran. */
function searchedReply(context: Context): Step | undefined {
  const done = doneThisTurn(context, 'searchProducts');
  const snapshot = done && readSearch(done);
  return snapshot ? say(reply.searchReply(snapshot)) : undefined;
}

const dollars = (cents: number) => cents / 100;

/**
 * "cheaper" / "more expensive" as a limit: just below the cheapest (above the dearest) product the
 * shopper saw last. With nothing seen, the search is only sorted that way.
 */
function withRelativePrice(
  context: Context,
  search: SearchProductsInput,
  relative: NonNullable<SearchRequest['relativePrice']>,
): SearchProductsInput {
  const { minPrice: _min, maxPrice: _max, ...rest } = search;
  const prices = (context.state.listing?.products ?? []).map(({ price }) => price);
  if (prices.length === 0) return { ...rest, sortBy: relative === 'lower' ? 'price_asc' : 'price_desc' };
  return relative === 'lower'
    ? { ...rest, maxPrice: dollars(Math.min(...prices) - 1) }
    : { ...rest, minPrice: dollars(Math.max(...prices) + 1) };
}

/**
 * A message that names no product and no category ("cheaper", "under $80", "any in blue?", "in size L",
 * "from Nike") refines the last search: its topic and filters stay, only what the message says changes.
 */
function planSearch(context: Context, intent: Extract<Intent, { kind: 'search' }>): Step {
  const answered = searchedReply(context);
  if (answered) return answered;
  const { input, relativePrice } = intent.request;
  const previous = context.state.search?.input;
  const refines = previous !== undefined && input.query === '' && input.category === undefined;
  let search = input;
  if (refines) {
    const { page: _page, ...kept } = previous;
    search = { ...kept, ...input, query: previous.query };
  }
  if (relativePrice !== undefined) search = withRelativePrice(context, search, relativePrice);
  return one(context, 'searchProducts', search);
}

/** What kind of product it is, in the words of its name without the brand: "hooded puffer jacket". */
function kindOf(product: ProductSummary): string {
  const { productName, brand } = product;
  const unbranded = productName.toLowerCase().startsWith(brand.toLowerCase())
    ? productName.slice(brand.length)
    : productName;
  return unbranded.trim().toLowerCase();
}

/** "more like the first one": a new search for products of that one's kind. */
function planSimilar(context: Context, intent: Extract<Intent, { kind: 'similar' }>): Step {
  const answered = searchedReply(context);
  if (answered) return answered;
  const target = resolveProduct(intent.target, context.state);
  if (!target.ok) return say(reply.productProblemReply(target.problem));
  return one(context, 'searchProducts', { query: kindOf(target.value), limit: RESULTS_PER_PAGE });
}

/** "yes" after a search found nothing runs the broader search that answer offered. */
function planAccept(context: Context): Step {
  const answered = searchedReply(context);
  if (answered) return answered;
  const { search } = context.state;
  const broader = search && search.products.length === 0 ? broaderSearch(search.input) : undefined;
  return broader ? one(context, 'searchProducts', broader.input) : say(reply.ASK_WHAT_TO_SEARCH);
}

function planMoreResults(context: Context): Step {
  const answered = searchedReply(context);
  if (answered) return answered;
  const previous = context.state.search?.input;
  if (!previous) return say(reply.ASK_WHAT_TO_SEARCH);
  return one(context, 'searchProducts', { ...previous, page: (previous.page ?? 1) + 1 });
}

/**
 * A product named by words the latest results do not match is searched for once in this request; a
 * second miss is reported rather than searched again.
 */
function searchedThisTurn(context: Context): boolean {
  return doneThisTurn(context, 'searchProducts') !== undefined;
}

function planDetails(context: Context, intent: Extract<Intent, { kind: 'details' }>): Step {
  const done = doneThisTurn(context, 'getProductDetails');
  if (done) {
    const product = readDetails(done);
    return say(product ? reply.detailsReply(product) : reply.PRODUCT_GONE_REPLY);
  }
  const target = resolveProduct(intent.target, context.state);
  if (target.ok) return one(context, 'getProductDetails', { productId: target.value.productId });
  if (intent.target.kind === 'words' && !searchedThisTurn(context)) {
    return one(context, 'searchProducts', parseSearchRequest(context.conversation.lastUserText).input);
  }
  return say(reply.productProblemReply(target.problem));
}

function planAdd(context: Context, intent: Extract<Intent, { kind: 'add' }>): Step {
  const added = doneThisTurn(context, 'addToCart');
  const item = added && readAdded(added);
  if (item) return say(reply.addedReply(item, intent.wish));
  const target = resolveProduct(intent.target, context.state);
  if (target.ok) return addToCartCall(context, target.value, intent.wish);
  if (intent.target.kind !== 'words') return say(reply.productProblemReply(target.problem));
  if (!searchedThisTurn(context)) return one(context, 'searchProducts', intent.request.input);
  // The search this request ran did not single one product out: let the shopper pick from it.
  const { search } = context.state;
  return say(search ? reply.searchReply(search) : reply.productProblemReply(target.problem));
}

function planViewCart(context: Context): Step {
  if (!doneThisTurn(context, 'viewCart')) return one(context, 'viewCart', {});
  return say(reply.cartReply(context.state.cart.items));
}

function planEmptyCart(context: Context): Step {
  const { current } = context.conversation;
  const removals = current.filter((exchange) => exchange.toolName === 'removeFromCart');
  if (removals.length > 0) {
    const nameOf = (exchange: ToolExchange) => {
      const { itemId } = exchange.input as ShoppingToolInput<'removeFromCart'>;
      return context.state.seenItems.get(itemId)?.productName ?? itemId;
    };
    const removed = removals.filter((exchange) => exchange.outcome?.ok).map(nameOf);
    const failures = removals.flatMap((exchange) =>
      exchange.outcome && !exchange.outcome.ok ? [`${nameOf(exchange)}: ${exchange.outcome.error}`] : [],
    );
    return say(reply.emptiedReply(removed, failures));
  }
  const { cart } = context.state;
  if (!cart.listed) return one(context, 'viewCart', {});
  if (cart.items.length === 0) return say(reply.ALREADY_EMPTY_REPLY);
  return call(
    context,
    cart.items.map(({ id }) => ({ toolName: 'removeFromCart', input: { itemId: id } })),
  );
}

/** A cart reference that misses is retried once against a fresh listing: the cart may have changed. */
function refreshCart(context: Context): boolean {
  return !context.state.cart.fresh && !doneThisTurn(context, 'viewCart');
}

function planRemove(context: Context, intent: Extract<Intent, { kind: 'remove' }>): Step {
  const done = doneThisTurn(context, 'removeFromCart');
  if (done) {
    const { itemId } = done.input as ShoppingToolInput<'removeFromCart'>;
    return say(reply.removedReply(context.state.seenItems.get(itemId)?.productName ?? 'the item'));
  }
  const target = resolveCartItem(intent.target, context.state);
  if (target.ok) return one(context, 'removeFromCart', { itemId: target.value.id });
  if (refreshCart(context)) return one(context, 'viewCart', {});
  return say(reply.cartProblemReply(target.problem, context.state.cart.items, 'remove'));
}

/**
 * Whether "buy the second one" / "buy it" means a product the shopper was looking at rather than an item
 * already in the cart: positions point into whichever list was shown last; "it" into the focus.
 */
function pointsAtProduct(context: Context, intent: Extract<Intent, { kind: 'checkout' }>): boolean {
  const { state } = context;
  switch (intent.target.kind) {
    case 'position':
    case 'superlative':
      return state.lastListing === 'search';
    case 'pronoun':
    case 'none': {
      const { focus } = state;
      return (
        focus?.kind === 'product' &&
        !state.cart.items.some(({ productId }) => productId === focus.product.productId)
      );
    }
    case 'words':
      return false;
  }
}

function planCheckout(context: Context, intent: Extract<Intent, { kind: 'checkout' }>): Step {
  const done = doneThisTurn(context, 'checkout');
  const order = done && readOrder(done);
  if (done && order) {
    const { cartItemId } = done.input as ShoppingToolInput<'checkout'>;
    return say(reply.orderReply(order, context.state.seenItems.get(cartItemId)));
  }
  const added = doneThisTurn(context, 'addToCart');
  const addedItem = added && readAdded(added);
  if (addedItem) return one(context, 'checkout', { cartItemId: addedItem.id });
  if (pointsAtProduct(context, intent)) {
    const product = resolveProduct(intent.target, context.state);
    if (!product.ok) return say(reply.productProblemReply(product.problem));
    return addToCartCall(context, product.value, intent.wish);
  }
  const target = resolveCartItem(intent.target, context.state);
  if (target.ok) return one(context, 'checkout', { cartItemId: target.value.id });
  if (refreshCart(context)) return one(context, 'viewCart', {});
  return say(reply.cartProblemReply(target.problem, context.state.cart.items, 'check out'));
}

function planRemember(context: Context, intent: Extract<Intent, { kind: 'remember' }>): Step {
  const done = doneThisTurn(context, 'rememberMemory');
  const saved = done && readRemembered(done);
  if (saved) return say(reply.rememberedReply(saved.text));
  if (intent.fact.length < 3) return say(reply.ASK_WHAT_TO_REMEMBER);
  return one(context, 'rememberMemory', { fact: intent.fact });
}

function planIntent(context: Context, intent: Intent): Step {
  switch (intent.kind) {
    case 'search':
      return planSearch(context, intent);
    case 'more-results':
      return planMoreResults(context);
    case 'details':
      return planDetails(context, intent);
    case 'add':
      return planAdd(context, intent);
    case 'view-cart':
      return planViewCart(context);
    case 'empty-cart':
      return planEmptyCart(context);
    case 'remove':
      return planRemove(context, intent);
    case 'checkout':
      return planCheckout(context, intent);
    case 'remember':
      return planRemember(context, intent);
    case 'similar':
      return planSimilar(context, intent);
    case 'accept':
      return planAccept(context);
    case 'gift-question':
      return say(reply.GIFT_QUESTION_REPLY);
    case 'greeting':
      return say(reply.GREETING_REPLY);
    case 'thanks':
      return say(reply.THANKS_REPLY);
    case 'off-topic':
      return say(reply.OFF_TOPIC_REPLY);
  }
}

/**
 * Decides the next step of the SDK's tool loop from the whole prompt. It is called afresh on every step
 * and reads what this request already did from the tool results, so the same prompt always gives the
 * same step, and a loop like viewCart -> removeFromCart -> answer needs no hidden state.
 */
export function planStep(conversation: Conversation, offered: ReadonlySet<string>): Step {
  if (conversation.system.includes(TITLE_PROMPT_MARKER)) return say(titleFor(conversation.lastUserText));
  const intent = parseIntent(conversation.lastUserText);
  // Emptying the cart reports each failed removal itself; any other failure ends the request.
  const failed = conversation.current.find(
    (exchange) =>
      exchange.outcome?.ok === false &&
      !(intent.kind === 'empty-cart' && exchange.toolName === 'removeFromCart'),
  );
  if (failed?.outcome?.ok === false) {
    if (failed.outcome.code === TOOL_FAILURE_CODES.productNotFound) return say(reply.PRODUCT_GONE_REPLY);
    return say(reply.failureReply(failed.toolName, failed.outcome.error));
  }
  const step = planIntent({ conversation, state: shoppingState(conversation), offered }, intent);
  // Every plan reads its earlier steps back from their results; one it cannot read would be asked for
  // again on every step until the step limit. Answering instead ends that loop.
  if (step.kind === 'tool-calls') {
    const made = new Set(conversation.current.map(({ toolName, input }) => callKey(toolName, input)));
    const repeated = step.calls.find(({ toolName, input }) => made.has(callKey(toolName, input)));
    if (repeated) return say(reply.unreadableReply(repeated.toolName));
  }
  return step;
}
