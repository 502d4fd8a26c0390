import { abortCode, contract, type FunctionSpec } from './contract';
import { dynamicFieldKey, type ObjectSession, type StoredObject } from './object-store';

/** A Move `abort` with one of the contract's codes, raised inside a cart function. */
export class MoveAbort extends Error {
  readonly code: number;

  constructor(readonly abortName: string) {
    super(`abort ${abortName}`);
    this.code = abortCode(abortName);
  }
}

export interface CallContext {
  session: ObjectSession;
  sender: string;
  newObjectId(): string;
  emit(event: string, values: Record<string, string>): void;
}

/** Decoded arguments by parameter name: addresses/IDs normalized, u64 as bigint, strings as text. */
export type CallArguments = Record<string, string | bigint>;

const { limits } = contract.cart;
const ADDRESS_NAME_TYPE = 'address';

/**
 * The cart contract's entry functions, executed against the stand-in's objects with the rules
 * and abort codes the contract file documents, checked in the order it lists them.
 */
export class CartModule {
  private readonly types: { cart: string; item: string };

  constructor(
    private readonly packageId: string,
    private readonly registryId: string,
  ) {
    const module = `${packageId}::${contract.cart.module}`;
    this.types = { cart: `${module}::Cart`, item: `${module}::CartItem` };
  }

  call(fn: FunctionSpec, args: CallArguments, ctx: CallContext): void {
    const registry = ctx.session.modify(this.registryId);
    if (!registry) throw new Error('the registry object is missing');
    if (registry.fields.relayer !== ctx.sender) throw new MoveAbort('Unauthorized');
    const user = text(args, 'user');

    switch (fn.name) {
      case 'init_cart':
        return this.initCart(registry, user, ctx);
      case 'add_item':
        return this.addItem(registry, user, args, ctx);
      case 'remove_item':
        return this.removeItem(registry, user, text(args, 'item_id'), ctx);
      case 'checkout':
        return this.checkout(registry, user, args, ctx);
      default:
        throw new Error(`the stand-in does not implement cart::${fn.name}`);
    }
  }

  private initCart(registry: StoredObject, user: string, ctx: CallContext): void {
    const key = dynamicFieldKey(ADDRESS_NAME_TYPE, user);
    if (registry.children[key]) throw new MoveAbort('CartExists');
    const cartId = ctx.newObjectId();
    ctx.session.create({
      objectId: cartId,
      type: this.types.cart,
      owner: { ObjectOwner: this.registryId },
      fields: { id: { id: cartId }, user, item_ids: [] },
      children: {},
    });
    registry.children[key] = cartId;
    registry.fields.cart_count = String(BigInt(String(registry.fields.cart_count)) + 1n);
    ctx.emit('CartCreated', { user, cart_id: cartId });
  }

  private addItem(registry: StoredObject, user: string, args: CallArguments, ctx: CallContext): void {
    const cart = this.cartOf(registry, user, ctx);
    const product = {
      product_id: text(args, 'product_id'),
      product_name: text(args, 'product_name'),
      image_url: text(args, 'image_url'),
      product_url: text(args, 'product_url'),
      size: text(args, 'size'),
      color: text(args, 'color'),
      retailer: text(args, 'retailer'),
    };
    const price = integer(args, 'price_cents');
    if (!withinLimits(product) || price < BigInt(limits.minPriceCents)) throw new MoveAbort('InvalidProduct');

    const itemIds = idList(cart);
    const duplicate = itemIds.some((id) => {
      const item = ctx.session.read(id);
      return (
        item &&
        limits.uniqueItemKey.every((field) => item.fields[field] === product[field as keyof typeof product])
      );
    });
    if (duplicate) throw new MoveAbort('DuplicateItem');
    if (itemIds.length >= limits.maxItemsPerCart) throw new MoveAbort('CartFull');

    const itemId = ctx.newObjectId();
    const priceCents = price.toString();
    ctx.session.create({
      objectId: itemId,
      type: this.types.item,
      owner: { ObjectOwner: cart.objectId },
      fields: { id: { id: itemId }, ...product, price_cents: priceCents },
      children: {},
    });
    cart.fields.item_ids = [...itemIds, itemId];
    ctx.emit('CartItemAdded', {
      user,
      cart_id: cart.objectId,
      item_id: itemId,
      ...product,
      price_cents: priceCents,
    });
  }

  private removeItem(registry: StoredObject, user: string, itemId: string, ctx: CallContext): void {
    const cart = this.cartOf(registry, user, ctx);
    const itemIds = idList(cart);
    if (!itemIds.includes(itemId)) throw new MoveAbort('ItemNotFound');
    cart.fields.item_ids = itemIds.filter((id) => id !== itemId);
    ctx.session.delete(itemId);
    ctx.emit('CartItemRemoved', { user, cart_id: cart.objectId, item_id: itemId });
  }

  private checkout(registry: StoredObject, user: string, args: CallArguments, ctx: CallContext): void {
    const cartId = this.cartIdOf(registry, user);
    const cart = ctx.session.read(cartId);
    if (!cart) throw new Error(`cart ${cartId} is indexed but missing`);
    const orderId = text(args, 'order_id');
    if (!withinLimits({ order_id: orderId })) throw new MoveAbort('InvalidOrderId');
    const itemId = text(args, 'item_id');
    const item = idList(cart).includes(itemId) ? ctx.session.read(itemId) : undefined;
    if (!item) throw new MoveAbort('ItemNotFound');
    ctx.emit('OrderCreated', {
      user,
      cart_id: cartId,
      order_id: orderId,
      item_id: itemId,
      product_id: String(item.fields.product_id),
      price_cents: String(item.fields.price_cents),
    });
  }

  private cartIdOf(registry: StoredObject, user: string): string {
    const cartId = registry.children[dynamicFieldKey(ADDRESS_NAME_TYPE, user)];
    if (!cartId) throw new MoveAbort('CartNotFound');
    return cartId;
  }

  private cartOf(registry: StoredObject, user: string, ctx: CallContext): StoredObject {
    const cartId = this.cartIdOf(registry, user);
    const cart = ctx.session.modify(cartId);
    if (!cart) throw new Error(`cart ${cartId} is indexed but missing`);
    return cart;
  }
}

function withinLimits(values: Record<string, string>): boolean {
  return Object.entries(values).every(([field, value]) => {
    const max = limits.maxBytes[field];
    if (max !== undefined && Buffer.byteLength(value) > max) return false;
    return !(limits.requiredNonEmpty.includes(field) && value.length === 0);
  });
}

function idList(cart: Readonly<StoredObject>): string[] {
  return (cart.fields.item_ids as string[] | undefined) ?? [];
}

function text(args: CallArguments, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new Error(`argument ${name} is not a string`);
  return value;
}

function integer(args: CallArguments, name: string): bigint {
  const value = args[name];
  if (typeof value !== 'bigint') throw new Error(`argument ${name} is not an integer`);
  return value;
}
