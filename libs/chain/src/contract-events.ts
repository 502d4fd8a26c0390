import type { SuiClient, SuiEvent } from '@mysten/sui/client';
import { z } from 'zod';
import { normalizeAddress, sameStructType } from './addresses';
import { cartContract, CART_EVENT_NAMES, type CartEventName } from './contract-interface';
import { ChainError } from './errors';
import { assertSchemaMatchesFields, moveAddress, moveString, moveU64 } from './move-values';
import type { RetryPolicy } from '@shop/retry';
import { withTransportRetry } from './retry';

/** Position in the node's event stream; persist it to resume an indexer. */
export interface EventCursor {
  txDigest: string;
  eventSeq: string;
}

export interface OnChainProduct {
  productId: string;
  productName: string;
  priceCents: bigint;
  imageUrl: string;
  productUrl: string;
  size: string;
  color: string;
  retailer: string;
}

interface EventMeta {
  id: EventCursor;
  txDigest: string;
  sender: string;
  timestampMs: number | null;
}

export type ContractEvent = EventMeta &
  (
    | { kind: 'CartCreated'; user: string; cartId: string }
    | { kind: 'CartItemAdded'; user: string; cartId: string; itemId: string; product: OnChainProduct }
    | { kind: 'CartItemRemoved'; user: string; cartId: string; itemId: string }
    | {
        kind: 'OrderCreated';
        user: string;
        cartId: string;
        orderId: string;
        itemId: string;
        productId: string;
        priceCents: bigint;
      }
    /** Emitted by a contract function but not one of the events above (e.g. a newer contract version). */
    | { kind: 'Unknown'; type: string; parsedJson: unknown }
  );

export interface ContractEventPage {
  events: ContractEvent[];
  /** Where the next query resumes; the given cursor again when the page was empty. */
  nextCursor: EventCursor | null;
  hasNextPage: boolean;
}

const eventShapes = {
  CartCreated: { user: moveAddress, cart_id: moveAddress },
  CartItemAdded: {
    user: moveAddress,
    cart_id: moveAddress,
    item_id: moveAddress,
    product_id: moveString,
    product_name: moveString,
    price_cents: moveU64,
    image_url: moveString,
    product_url: moveString,
    size: moveString,
    color: moveString,
    retailer: moveString,
  },
  CartItemRemoved: { user: moveAddress, cart_id: moveAddress, item_id: moveAddress },
  OrderCreated: {
    user: moveAddress,
    cart_id: moveAddress,
    order_id: moveString,
    item_id: moveAddress,
    product_id: moveString,
    price_cents: moveU64,
  },
} satisfies Record<CartEventName, Record<string, z.ZodType>>;

for (const name of CART_EVENT_NAMES) {
  assertSchemaMatchesFields(`event ${name}`, eventShapes[name], cartContract.cart.events[name].fields);
}

const parsers = {
  CartCreated: z
    .object(eventShapes.CartCreated)
    .transform((e) => ({ kind: 'CartCreated' as const, user: e.user, cartId: e.cart_id })),
  CartItemAdded: z.object(eventShapes.CartItemAdded).transform((e) => ({
    kind: 'CartItemAdded' as const,
    user: e.user,
    cartId: e.cart_id,
    itemId: e.item_id,
    product: {
      productId: e.product_id,
      productName: e.product_name,
      priceCents: e.price_cents,
      imageUrl: e.image_url,
      productUrl: e.product_url,
      size: e.size,
      color: e.color,
      retailer: e.retailer,
    },
  })),
  CartItemRemoved: z.object(eventShapes.CartItemRemoved).transform((e) => ({
    kind: 'CartItemRemoved' as const,
    user: e.user,
    cartId: e.cart_id,
    itemId: e.item_id,
  })),
  OrderCreated: z.object(eventShapes.OrderCreated).transform((e) => ({
    kind: 'OrderCreated' as const,
    user: e.user,
    cartId: e.cart_id,
    orderId: e.order_id,
    itemId: e.item_id,
    productId: e.product_id,
    priceCents: e.price_cents,
  })),
} satisfies Record<CartEventName, z.ZodType>;

/** Reads one node event as a cart-contract event of `packageId`. */
export function parseContractEvent(event: SuiEvent, packageId: string): ContractEvent {
  const meta: EventMeta = {
    id: { txDigest: event.id.txDigest, eventSeq: event.id.eventSeq },
    txDigest: event.id.txDigest,
    sender: normalizeAddress(event.sender),
    timestampMs: event.timestampMs ? Number(event.timestampMs) : null,
  };
  const name = CART_EVENT_NAMES.find((candidate) =>
    sameStructType(event.type, `${packageId}::${cartContract.cart.module}::${candidate}`),
  );
  if (!name) return { ...meta, kind: 'Unknown', type: event.type, parsedJson: event.parsedJson };

  const parsed = parsers[name].safeParse(event.parsedJson);
  if (!parsed.success) {
    throw new ChainError(
      `event ${event.type} at ${event.id.txDigest}#${event.id.eventSeq} does not match the contract`,
      {
        cause: parsed.error,
      },
    );
  }
  return { ...meta, ...parsed.data };
}

/**
 * One page of the events emitted by calls into the contract's cart module, oldest first (the
 * node's default order is newest first, which an indexer must not use).
 */
export async function queryContractEvents(
  client: SuiClient,
  packageId: string,
  cursor: EventCursor | null,
  limit: number,
  retry: RetryPolicy,
): Promise<ContractEventPage> {
  const page = await withTransportRetry(retry, () =>
    client.queryEvents({
      query: { MoveModule: { package: packageId, module: cartContract.cart.module } },
      cursor,
      limit,
      order: 'ascending',
    }),
  );
  const events = page.data.map((event) => parseContractEvent(event, packageId));
  return {
    events,
    nextCursor: page.nextCursor ?? events.at(-1)?.id ?? cursor,
    hasNextPage: page.hasNextPage,
  };
}
