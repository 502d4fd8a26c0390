import { ChainAbortError, ChainError, ChainInputError } from '@shop/chain';
import { cartFull, cartItemNotFound, DomainError, duplicateCartItem, invalidProduct } from '@shop/domain';

export const cartNotInitialized = () =>
  new DomainError('invalid', 'CART_NOT_INITIALIZED', 'Create the on-chain cart first (POST /api/cart/init)');

/**
 * A contract abort is a domain answer (a full cart is CartFullError, never a 500); anything
 * else from the chain is an upstream failure.
 */
export function domainErrorOf(error: unknown): unknown {
  if (error instanceof ChainAbortError) {
    switch (error.abortName) {
      case 'CartFull':
        return cartFull();
      case 'DuplicateItem':
        return duplicateCartItem();
      case 'ItemNotFound':
        return cartItemNotFound();
      case 'CartNotFound':
        return cartNotInitialized();
      case 'InvalidProduct':
        return invalidProduct('refused by the cart contract');
      default:
        return new DomainError(
          'upstream',
          'UPSTREAM_ERROR',
          `The cart contract refused the call: ${error.abortName}`,
        );
    }
  }
  if (error instanceof ChainInputError) return new DomainError('invalid', 'BAD_REQUEST', error.message);
  if (error instanceof ChainError) {
    return new DomainError('upstream', 'UPSTREAM_ERROR', `The chain could not be reached: ${error.message}`);
  }
  return error;
}
