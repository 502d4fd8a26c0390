import { parsePositions, parseReference, type Reference } from './reference';
import { parseSearchRequest, type SearchRequest } from './search-request';
import { normalizeMessage, TextScanner } from './text-scanner';
import { takeColor, takeSize } from './variant-words';

/** A size and colour the shopper asked for, in their words ("blue"), matched to a product later. */
export interface VariantWish {
  size?: string;
  color?: string;
  /** "black if possible": the nearest the product has will do, said to the shopper. */
  soft?: boolean;
}

export type Intent =
  | { kind: 'search'; request: SearchRequest }
  | { kind: 'more-results' }
  | { kind: 'details'; target: Reference }
  /** `request` is the same message read as a search, for when the words name no known product. */
  | { kind: 'add'; target: Reference; wish: VariantWish; request: SearchRequest }
  | { kind: 'view-cart' }
  | { kind: 'empty-cart' }
  | { kind: 'remove'; target: Reference }
  | { kind: 'checkout'; target: Reference; wish: VariantWish }
  | { kind: 'remember'; fact: string }
  /** "how do the first two differ?": `targets` are each product named, or one "both"/"them" reference. */
  | { kind: 'compare'; targets: Reference[]; ask?: 'better' | 'cheaper' }
  /** "has my order shipped?": the latest order, or the orders whose item `about` names. */
  | {
      kind: 'orders';
      latest: boolean;
      about?: Reference;
      ask?: 'shipped' | 'delivered';
      within?: OrderWindow;
    }
  /** "what size did I say my dad wears?": a question about what the shopper asked to be remembered. */
  | { kind: 'recall'; question: string }
  /** "more like the first one": products of the same kind as the one pointed at. */
  | { kind: 'similar'; target: Reference }
  /** "yes" to the broader search the last empty answer offered. */
  | { kind: 'accept' }
  /** A gift for someone, without a word on what they like. */
  | { kind: 'gift-question' }
  | { kind: 'greeting' }
  | { kind: 'thanks' }
  | { kind: 'off-topic' };

const RECALL =
  /\bwhat (?:\w+\s+){0,3}(?:did|have) i (?:say|said|tell|told|mention|mentioned)\b|\bwhat did i ask you to remember\b|\bdo you (?:remember|recall)\b|\bwhat do you (?:know|remember) about\b|\bremind me\b/;
const ORDERS =
  /\b(?:my|last|latest|recent|previous|past)\s+(?:\w+\s+)?(?:orders?|purchases?|deliver(?:y|ies))\b|\border (?:status|history)\b|\bwhere(?:'s| is) my (?!cart|basket)\w+|\b(?:shipped|arrived|dispatched|delivered)\b|\btrack (?:my|the|it|an?|that|this)\b|\btracking\b|\bwhat (?:did|have) i (?:buy|bought|order|ordered|purchase|purchased)\b|\bdid i (?:buy|order|purchase)\b/;
/** When the orders a shopper asks about were placed ("what did I buy last week?"), in UTC days. */
export interface OrderWindow {
  /** How the shopper said it, for the answer: "today", "last week". */
  label: string;
  /** Whole days back from today where the window starts (0: today) and ends (0: now). */
  fromDaysAgo: number;
  toDaysAgo: number;
}

const ORDER_WINDOWS: [RegExp, OrderWindow][] = [
  [/\btoday\b/, { label: 'today', fromDaysAgo: 0, toDaysAgo: 0 }],
  [/\byesterday\b/, { label: 'yesterday', fromDaysAgo: 1, toDaysAgo: 1 }],
  [
    /\b(?:this|last|past) week\b|\bin the (?:last|past) (?:7 days|week)\b/,
    { label: 'the last week', fromDaysAgo: 7, toDaysAgo: 0 },
  ],
  [
    /\b(?:this|last|past) month\b|\bin the (?:last|past) (?:30 days|month)\b/,
    { label: 'the last month', fromDaysAgo: 30, toDaysAgo: 0 },
  ],
];

const LATEST_ORDER = /\b(?:last|latest|most recent)\s+(?:order|purchase|one)\b|\bmy order\b/;
/** Words of an order question that say nothing about which product it was. */
const ORDER_WORDS =
  /\b(?:orders?|purchases?|shipped|arrived|dispatched|delivered|deliver(?:y|ies)|track(?:ing)?|status|history|last|latest|recent|previous|past|week|month|yesterday|today|where|has|have|been|did|yet|buy|bought|ordered|purchased|package|parcel|on its way)\b/g;
const COMPARE =
  /\b(?:compare|comparison|differ|differs|difference|differences|versus|vs\.?|side by side)\b|\bwhich (?:one |of them |of the two )?is (?:better|cheaper|best)\b|\bwhich one's (?:better|cheaper|best)\b/;
/** Also the existing frontend's memory command, `/remember <fact>`, which its suggestion buttons send. */
const REMEMBER =
  /^(?:\/remember\b|(?:(?:please|pls|can you|could you|would you)\s+)?(?:remember|note|keep in mind|don'?t forget)\b)\s*(?:that\b|:)?\s*/i;
const EMPTY_CART =
  /\b(?:empty|clear|reset)\b.*\b(?:cart|basket)\b|\b(?:remove|delete|clear)\s+(?:everything|all(?:\s+(?:the\s+|my\s+)?items)?)\b/;
const REMOVE = /\b(?:remove|delete|take out|take off|drop|get rid of)\b/;
const CHECK_OUT = /\bcheck\s*out\b|\bcheckout\b/;
const BUY = /\b(?:buy|purchase|order|pay for)\b/;
const ADD = /\b(?:add|put|throw|toss)\b|\bi'?ll take\b|\b(?:grab|get) me (?:the|that|this|it)\b/;
const CART = /\b(?:cart|basket)\b|\bmy total\b/;
const MORE_RESULTS =
  /\b(?:more results|show (?:me )?more|next page|more options|see more|load more|other options)\b/;
const DETAILS =
  /\b(?:tell me (?:more )?about|more (?:about|on|info|information|details)|details?\b|describe|info on)/;
const SHOW = /\b(?:show me|what about|how about|let me see)\b/;
const SHOPPING_VERB =
  /\b(?:show me|find|search|searching|looking for|look for|shop for|shopping for|recommend|suggest|do you (?:have|sell|carry)|buy|purchase)\b/;
const GREETING = /^(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening))\b/;
const THANKS = /\b(?:thanks|thank you|thx|cheers|appreciate it)\b/;
const SIMILAR = /\b(?:more|others?|something|anything|ones?|things?|stuff)\s+(?:just\s+)?like\b|\bsimilar\b/;
const YES = /^(?:yes|yeah|yep|yup|sure|ok(?:ay)?|please do|go ahead|do it|why not)\b/;
const SOFT_WISH =
  /\b(?:if (?:possible|available|you can|they have (?:it|one|them))|preferably|ideally|or (?:similar|close|the nearest|whatever))\b/;

function wishOf(message: string): VariantWish {
  const scanner = new TextScanner(message);
  const size = takeSize(scanner);
  const color = takeColor(scanner);
  return {
    ...(size !== undefined && { size }),
    ...(color !== undefined && { color }),
    ...(SOFT_WISH.test(scanner.remaining) && { soft: true }),
  };
}

function factOf(message: string): string {
  const fact = message
    .trim()
    .replace(REMEMBER, '')
    .replace(/[\s.!]+$/, '')
    .trim();
  return fact.charAt(0).toUpperCase() + fact.slice(1);
}

function ordersIntent(text: string): Intent {
  const ask = /\b(?:shipped|dispatched|on (?:its|the) way)\b/.test(text)
    ? 'shipped'
    : /\b(?:delivered|arrived)\b/.test(text)
      ? 'delivered'
      : undefined;
  const within = ORDER_WINDOWS.find(([words]) => words.test(text))?.[1];
  const named = parseReference(text.replace(ORDER_WORDS, ' '));
  const about = named.kind === 'words' ? named : undefined;
  return {
    kind: 'orders',
    latest:
      about === undefined && within === undefined && LATEST_ORDER.test(text) && !/\borders\b/.test(text),
    ...(about && { about }),
    ...(ask && { ask }),
    ...(within && { within }),
  };
}

/** The products a comparison names: positions, or phrases split at "and" / "or" / "vs", or one reference. */
function compareIntent(message: string, text: string): Intent {
  const ask = /\b(?:better|best)\b/.test(text) ? 'better' : /\bcheaper\b/.test(text) ? 'cheaper' : undefined;
  const positions = parsePositions(message);
  let targets: Reference[] = positions.map((index): Reference => ({ kind: 'position', index }));
  if (targets.length === 0) {
    const named = text
      .replace(COMPARE, ' ')
      .split(/\s*(?:,|\band\b|\bor\b|\bvs\.?|\bversus\b|\bwith\b|\bto\b)\s*/)
      .map(parseReference)
      .filter((reference) => reference.kind === 'words');
    targets = named.length >= 2 ? named : [parseReference(text.replace(COMPARE, ' '))];
  }
  return { kind: 'compare', targets, ...(ask && { ask }) };
}

/**
 * What the shopper wants from their latest message. The rules are ordered from the most specific verb to
 * the most general: "remove everything" empties the cart before "remove" reads as one removal, and
 * "buy it" checks out while "buy running shoes" searches.
 */
export function parseIntent(message: string): Intent {
  const text = normalizeMessage(message);
  if (RECALL.test(text)) return { kind: 'recall', question: message.trim() };
  if (REMEMBER.test(text)) return { kind: 'remember', fact: factOf(message) };
  if (EMPTY_CART.test(text)) return { kind: 'empty-cart' };
  const target = parseReference(message);
  if (ORDERS.test(text) && !ADD.test(text) && !REMOVE.test(text)) return ordersIntent(text);
  if (REMOVE.test(text)) return { kind: 'remove', target };
  if (COMPARE.test(text)) return compareIntent(message, text);
  const request = parseSearchRequest(message);
  if (CHECK_OUT.test(text) || (BUY.test(text) && (!request.namesProduct || CART.test(text)))) {
    return { kind: 'checkout', target, wish: wishOf(message) };
  }
  if (ADD.test(text)) return { kind: 'add', target, wish: wishOf(message), request };
  if (CART.test(text)) return { kind: 'view-cart' };
  if (SIMILAR.test(text) && target.kind !== 'none' && target.kind !== 'words') {
    return { kind: 'similar', target };
  }
  if (MORE_RESULTS.test(text) && !request.namesProduct) return { kind: 'more-results' };
  const picksShown = target.kind === 'superlative' || target.kind === 'attribute' || target.kind === 'other';
  if (target.kind === 'position' || (picksShown && !request.namesProduct)) {
    return { kind: 'details', target };
  }
  if (DETAILS.test(text) && target.kind !== 'none') return { kind: 'details', target };
  if (target.kind === 'pronoun' && (SHOW.test(text) || !request.hasSubject))
    return { kind: 'details', target };
  const { input } = request;
  const hasFilter =
    Object.keys(input).some((key) => key !== 'query' && key !== 'limit') ||
    request.relativePrice !== undefined;
  if (request.namesProduct || hasFilter || (SHOPPING_VERB.test(text) && request.hasSubject)) {
    return { kind: 'search', request };
  }
  if (request.gift) return { kind: 'gift-question' };
  if (THANKS.test(text)) return { kind: 'thanks' };
  if (YES.test(text)) return { kind: 'accept' };
  if (GREETING.test(text)) return { kind: 'greeting' };
  return { kind: 'off-topic' };
}

/** Intents that can share a message with another ("add the black one in M and show me matching socks"). */
const COMBINABLE: ReadonlySet<Intent['kind']> = new Set([
  'search',
  'details',
  'add',
  'view-cart',
  'remove',
  'checkout',
  'remember',
  'compare',
  'orders',
  'recall',
  'similar',
]);

/** Where a message's second request starts: "and" / "then" / "also" before a request's own verb. */
const CLAUSE_BREAK =
  /\s*[,;.!]?\s*\b(?:and then|and also|and|then|also|plus)\s+(?=(?:please\s+)?(?:show|find|search|look|add|put|remove|delete|check|buy|compare|tell|where|has|remember|get me|give me)\b)/;

export interface Clause {
  text: string;
  intent: Intent;
}

/**
 * The requests of one message, in order. A message is split only where every part reads as a request
 * of its own, so "compare the first and the third" or "a gift for my dad who likes coffee and tea"
 * stay whole.
 */
export function parseClauses(message: string): Clause[] {
  const whole = [{ text: message, intent: parseIntent(message) }];
  const parts = message.split(new RegExp(CLAUSE_BREAK.source, 'i')).filter((part) => part.trim() !== '');
  if (parts.length < 2) return whole;
  const clauses = parts.map((text) => ({ text, intent: parseIntent(text) }));
  return clauses.every(({ intent }) => COMBINABLE.has(intent.kind)) ? clauses : whole;
}
