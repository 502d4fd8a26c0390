import { z } from 'zod';
import contractJson from '../../../proto/sui-cart-contract.json';

/**
 * The names the client's typed API knows. Listing them here (rather than reading them loosely)
 * makes a contract file that adds, renames or drops one fail at load time instead of producing
 * events or errors the rest of the backend cannot name.
 */
export const CART_FUNCTION_NAMES = ['init_cart', 'add_item', 'remove_item', 'checkout'] as const;
export const ABORT_NAMES = [
  'CartFull',
  'DuplicateItem',
  'ItemNotFound',
  'CartExists',
  'CartNotFound',
  'Unauthorized',
  'InvalidProduct',
  'InvalidOrderId',
] as const;
export const CART_EVENT_NAMES = ['CartCreated', 'CartItemAdded', 'CartItemRemoved', 'OrderCreated'] as const;

export type CartFunctionName = (typeof CART_FUNCTION_NAMES)[number];
export type AbortName = (typeof ABORT_NAMES)[number];
export type CartEventName = (typeof CART_EVENT_NAMES)[number];

const field = z.object({ name: z.string().min(1), type: z.string().min(1) });
const struct = z.object({ fields: z.array(field) });

const contractSchema = z.object({
  version: z.literal(1),
  cart: z.object({
    module: z.string().min(1),
    limits: z.object({ maxItemsPerCart: z.number().int().positive() }),
    structs: z.object({ Cart: struct }),
    functions: z.array(
      z.object({
        name: z.string(),
        parameters: z.array(field),
        aborts: z.array(z.enum(ABORT_NAMES)),
        emits: z.array(z.enum(CART_EVENT_NAMES)),
      }),
    ),
    abortCodes: z.array(z.object({ code: z.number().int().nonnegative(), name: z.enum(ABORT_NAMES) })),
    events: z.object(
      Object.fromEntries(CART_EVENT_NAMES.map((name) => [name, struct])) as Record<
        CartEventName,
        typeof struct
      >,
    ),
  }),
  payment: z.object({
    module: z.string().min(1),
    events: z.object({ PaymentReceipt: struct }),
  }),
});

export type MoveField = z.output<typeof field>;
export type CartContractInterface = z.output<typeof contractSchema>;
export type CartFunctionSpec = CartContractInterface['cart']['functions'][number];

function load(): CartContractInterface {
  const contract = contractSchema.parse(contractJson);
  for (const name of CART_FUNCTION_NAMES) {
    if (!contract.cart.functions.some((fn) => fn.name === name)) {
      throw new Error(`proto/sui-cart-contract.json: function ${name} is missing`);
    }
  }
  for (const name of ABORT_NAMES) {
    if (contract.cart.abortCodes.filter((abort) => abort.name === name).length !== 1) {
      throw new Error(`proto/sui-cart-contract.json: abort ${name} must be listed exactly once`);
    }
  }
  return contract;
}

export const cartContract: CartContractInterface = load();

export function cartFunction(name: CartFunctionName): CartFunctionSpec {
  const spec = cartContract.cart.functions.find((fn) => fn.name === name);
  if (!spec) throw new Error(`unknown cart function ${name}`);
  return spec;
}

export function abortNameOf(code: bigint): AbortName | undefined {
  return cartContract.cart.abortCodes.find((abort) => BigInt(abort.code) === code)?.name;
}
