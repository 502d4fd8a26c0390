import type { ProductSummary } from '@shop/product-search';
import { searchTerms } from '@shop/scraper';
import { TITLE_PROMPT_MARKER } from '../title-prompt';
import { TOOL_FAILURE_CODES } from '../tool-result';
import type { SearchProductsInput, ShoppingToolInput, ShoppingToolName } from '../tool-schemas';
import { broaderSearch } from './broader-search';
import type { Conversation, ToolExchange } from './conversation';
import { parseClauses, type Intent, type OrderWindow, type VariantWish } from './intent';
import type { Reference } from './reference';
import * as reply from './replies';
import { resolveCartItem, resolveProduct, resolveProducts } from './resolve-target';
import { resolveVariant } from './resolve-variant';
import { parseSearchRequest, RESULTS_PER_PAGE, type SearchRequest } from './search-request';
import { shoppingState, type ShoppingState } from './shopping-state';
import { titleFor } from './title-for';
import { FILLER_WORDS } from './vocabulary';
import {
  readAdded,
  readComparison,
  readDetails,
  readOrder,
  readOrders,
  readRecalled,
  readRemembered,
  readSearch,
} from './tool-results';

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

/** The addToCart call for a product in the wished size and colour, or the answer why it cannot be. */
function addCallFor(product: ProductSummary, wish: VariantWish): PlannedCall<'addToCart'> | string {
  const variant = resolveVariant(product, wish);
  if (!variant.ok) return reply.variantProblemReply(product, variant.problem);
  return {
    toolName: 'addToCart',
    input: {
      productId: product.productId,
      productName: product.productName,
      price: product.price,
      image: product.image,
      productUrl: product.productUrl,
      retailer: product.retailer,
      ...(variant.size !== undefined && { size: variant.size }),
      ...(variant.color !== undefined && { color: variant.color }),
    },
  };
}

function addToCartCall(context: Context, product: ProductSummary, wish: VariantWish): Step {
  const planned = addCallFor(product, wish);
  return typeof planned === 'string' ? say(planned) : call(context, [planned]);
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
  const matched = intent.request.matching && search.color === undefined ? focusColor(context) : undefined;
  if (matched !== undefined) search = { ...search, color: matched };
  return one(context, 'searchProducts', search);
}

/** The colour of what the shopper just chose, for "matching socks": the cart item's, not a product's many. */
function focusColor(context: Context): string | undefined {
  const { focus } = context.state;
  const color = focus?.kind === 'cart-item' ? focus.item.color : undefined;
  return color && color !== 'Default' ? color.toLowerCase() : undefined;
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
  if (item && intent.target.kind === 'both') {
    const items = context.conversation.current.flatMap((exchange) => readAdded(exchange) ?? []);
    return say(items.map((each) => reply.addedReply(each, intent.wish)).join(' '));
  }
  if (item) return say(reply.addedReply(item, intent.wish));
  if (intent.target.kind === 'both') {
    const targets = resolveProducts(intent.target, context.state);
    if (!targets.ok) return say(reply.productProblemReply(targets.problem));
    const planned = targets.value.map((product) => addCallFor(product, intent.wish));
    const refused = planned.find((each): each is string => typeof each === 'string');
    if (refused !== undefined) return say(refused);
    return call(context, planned as PlannedCall[]);
  }
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
      return state.lastListing === 'search';
    case 'superlative':
    case 'attribute':
    case 'other':
    case 'both':
      return state.lastListing === 'search' || state.lastListing === 'compare';
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

/** The distinct products a comparison's references name, in the order named. */
function comparedProducts(context: Context, targets: readonly Reference[]) {
  const [first] = targets;
  if (targets.length === 1 && first) {
    if (first.kind === 'both') return resolveProducts(first, context.state);
    if (first.kind === 'pronoun' || first.kind === 'none') {
      const shown =
        context.state.lastListing === 'compare' && context.state.compared
          ? context.state.compared
          : (context.state.listing?.products ?? []);
      return { ok: true as const, value: shown.slice(0, 4) };
    }
  }
  const products: ProductSummary[] = [];
  for (const target of targets) {
    const resolved = resolveProduct(target, context.state);
    if (!resolved.ok) return resolved;
    if (!products.some(({ productId }) => productId === resolved.value.productId))
      products.push(resolved.value);
  }
  return { ok: true as const, value: products };
}

function planCompare(context: Context, intent: Extract<Intent, { kind: 'compare' }>): Step {
  const done = doneThisTurn(context, 'compareProducts');
  const comparison = done && readComparison(done);
  if (comparison) return say(reply.comparisonReply(comparison, intent.ask));
  const products = comparedProducts(context, intent.targets);
  if (!products.ok) return say(reply.productProblemReply(products.problem));
  if (products.value.length === 0) return say(reply.productProblemReply({ kind: 'nothing-to-point-at' }));
  if (products.value.length < 2) return say(reply.COMPARE_WHICH_REPLY);
  return one(context, 'compareProducts', { productIds: products.value.map(({ productId }) => productId) });
}

/** Orders whose item the shopper's words name ("is the jacket delivered?"). */
function ordersAbout<T extends { item: { productName: string } | null }>(
  orders: readonly T[],
  about: Reference | undefined,
): T[] {
  if (about?.kind !== 'words') return [...orders];
  return orders.filter(({ item }) => {
    const own = new Set(searchTerms(item?.productName ?? ''));
    return about.terms.some((term) => own.has(term));
  });
}

/** Orders placed within the window, by UTC days: "yesterday" is the whole of the day before today. */
function ordersWithin<T extends { createdAt: string }>(
  orders: readonly T[],
  within: OrderWindow | undefined,
): T[] {
  if (!within) return [...orders];
  const day = 86_400_000;
  const today = Math.floor(Date.now() / day) * day;
  const from = today - within.fromDaysAgo * day;
  const to = today - within.toDaysAgo * day + day;
  return orders.filter(({ createdAt }) => {
    const at = Date.parse(createdAt);
    return at >= from && at < to;
  });
}

function planOrders(context: Context, intent: Extract<Intent, { kind: 'orders' }>): Step {
  const done = doneThisTurn(context, 'getOrders');
  const page = done && readOrders(done);
  if (page) {
    const orders = ordersWithin(ordersAbout(page.orders, intent.about), intent.within);
    const about = intent.about?.kind === 'words' ? { phrase: intent.about.phrase } : undefined;
    const narrowed = about !== undefined || intent.within !== undefined;
    return say(
      reply.ordersReply(intent.latest ? orders.slice(0, 1) : orders, narrowed ? orders.length : page.total, {
        latest: intent.latest,
        ...(about && { about }),
        ...(intent.within && { within: intent.within.label }),
        ...(intent.ask && { ask: intent.ask }),
      }),
    );
  }
  // Shoppers ask about what they bought: wallet top-ups are orders too, but not what they mean. A
  // question that names an item or a time looks through the most the tool gives, not the newest 5.
  if (intent.latest) return one(context, 'getOrders', { type: 'checkout', limit: 1 });
  const narrowed = intent.about !== undefined || intent.within !== undefined;
  return one(context, 'getOrders', narrowed ? { type: 'checkout', limit: 20 } : { type: 'checkout' });
}

/** The shopper's saved preferences as the system prompt lists them, for a caller that offers no recall tool. */
function preferencesInPrompt(system: string): string[] {
  const fenced = /<user_preferences>\n([\s\S]*?)\n<\/user_preferences>/.exec(system)?.[1] ?? '';
  return fenced
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2));
}

/** Words of a recall question that ask, rather than say what about. */
const ASKING_WORDS = new Set([
  'did',
  'say',
  'said',
  'tell',
  'told',
  'mention',
  'remember',
  'recall',
  'remind',
  'know',
  'ask',
]);

/** The remembered facts that answer a question: those sharing the most of its own words. */
function answeringFacts(question: string, facts: readonly string[]): string[] {
  const wanted = new Set(
    searchTerms(question).filter((term) => !FILLER_WORDS.has(term) && !ASKING_WORDS.has(term)),
  );
  const scored = facts.map((fact) => ({
    fact,
    score: searchTerms(fact).filter((term) => wanted.has(term)).length,
  }));
  const top = Math.max(0, ...scored.map(({ score }) => score));
  return top === 0
    ? []
    : scored
        .filter(({ score }) => score === top)
        .map(({ fact }) => fact)
        .slice(0, 3);
}

function planRecall(context: Context, intent: Extract<Intent, { kind: 'recall' }>): Step {
  const done = doneThisTurn(context, 'recallMemories');
  const memories = done && readRecalled(done);
  if (memories)
    return say(
      reply.recalledReply(
        answeringFacts(
          intent.question,
          memories.map(({ text }) => text),
        ),
      ),
    );
  if (!context.offered.has('recallMemories')) {
    const saved = preferencesInPrompt(context.conversation.system);
    return say(reply.recalledReply(answeringFacts(intent.question, saved)));
  }
  return one(context, 'recallMemories', { question: intent.question });
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
    case 'compare':
      return planCompare(context, intent);
    case 'orders':
      return planOrders(context, intent);
    case 'recall':
      return planRecall(context, intent);
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

/** The next step for one request of the message, from the exchanges made for it so far. */
function planRequest(conversation: Conversation, offered: ReadonlySet<string>, intent: Intent): Step {
  // Emptying the cart reports each failed removal itself; any other failure ends the request.
  const failed = conversation.current.find(
    (exchange) =>
      exchange.outcome?.ok === false &&
      !(intent.kind === 'empty-cart' && exchange.toolName === 'removeFromCart'),
  );
  if (failed?.outcome?.ok === false) {
    if (failed.toolName === 'getProductDetails' && failed.outcome.code === TOOL_FAILURE_CODES.productNotFound)
      return say(reply.PRODUCT_GONE_REPLY);
    return say(reply.failureReply(failed.toolName, failed.outcome.error, failed.outcome.code));
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

/**
 * Decides the next step of the SDK's tool loop from the whole prompt. It is called afresh on every step
 * and reads what this request already did from the tool results, so the same prompt always gives the
 * same step, and a loop like viewCart -> removeFromCart -> answer needs no hidden state.
 *
 * A message with several requests ("add the black one in M and show me matching socks") is answered
 * request by request: the exchanges of this turn are handed to each request in order, a request owning
 * them up to the step at which it can answer, so each reads only its own steps while seeing what the
 * earlier ones changed. The answers are joined once the last is done.
 */
export function planStep(conversation: Conversation, offered: ReadonlySet<string>): Step {
  if (conversation.system.includes(TITLE_PROMPT_MARKER)) return say(titleFor(conversation.lastUserText));
  const clauses = parseClauses(conversation.lastUserText);
  const [only] = clauses;
  if (clauses.length === 1 && only) return planRequest(conversation, offered, only.intent);
  const exchanges = conversation.current;
  const answers: string[] = [];
  let start = 0;
  for (const { text, intent } of clauses) {
    let end = start;
    for (;;) {
      const part: Conversation = {
        ...conversation,
        lastUserText: text,
        earlier: [...conversation.earlier, ...exchanges.slice(0, start)],
        current: exchanges.slice(start, end),
      };
      const step = planRequest(part, offered, intent);
      if (step.kind === 'text') {
        answers.push(step.text);
        break;
      }
      if (end >= exchanges.length) return step;
      end += 1;
    }
    start = end;
  }
  return say(answers.join('\n\n'));
}
