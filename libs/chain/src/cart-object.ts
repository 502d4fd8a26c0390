import type { SuiClient } from '@mysten/sui/client';
import { z } from 'zod';
import { sameStructType } from './addresses';
import { cartContract } from './contract-interface';
import { ChainError } from './errors';
import { assertSchemaMatchesFields, moveAddress, moveIdVector, moveUid } from './move-values';
import type { RetryPolicy } from '@shop/retry';
import { withTransportRetry } from './retry';

/** A user's Move `Cart` object as the chain holds it (not the cart aggregate's state). */
export interface CartObject {
  cartId: string;
  user: string;
  itemIds: string[];
  itemCount: number;
}

const cartShape = { id: moveUid, user: moveAddress, item_ids: moveIdVector };
assertSchemaMatchesFields('struct Cart', cartShape, cartContract.cart.structs.Cart.fields);
const cartSchema = z.object(cartShape);

/**
 * Reads a user's cart, stored as a dynamic object field of the registry named by the user's
 * address (see the contract file). Null when the user has no cart.
 */
export async function readCart(
  client: SuiClient,
  contract: { packageId: string; registryId: string },
  user: string,
  retry: RetryPolicy,
): Promise<CartObject | null> {
  const response = await withTransportRetry(retry, () =>
    client.getDynamicFieldObject({ parentId: contract.registryId, name: { type: 'address', value: user } }),
  );
  if (response.error?.code === 'dynamicFieldNotFound') return null;
  const content = response.data?.content;
  if (response.error || content?.dataType !== 'moveObject') {
    throw new ChainError(
      `cart of ${user} unreadable: ${JSON.stringify(response.error ?? 'no Move object content')}`,
    );
  }
  const parsed = cartSchema.safeParse(content.fields);
  if (
    !parsed.success ||
    !sameStructType(content.type, `${contract.packageId}::${cartContract.cart.module}::Cart`)
  ) {
    throw new ChainError(`cart of ${user} is not a ${cartContract.cart.module}::Cart of this package`, {
      cause: parsed.error,
    });
  }
  const { id, user: owner, item_ids: itemIds } = parsed.data;
  return { cartId: id.id, user: owner, itemIds, itemCount: itemIds.length };
}
