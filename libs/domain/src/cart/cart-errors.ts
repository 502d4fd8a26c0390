import { DomainError } from '../domain-error';
import { CART_CAPACITY } from './cart-state';

export const cartFull = () =>
  new DomainError('invalid', 'CartFullError', `The cart already holds ${CART_CAPACITY} items`);

export const duplicateCartItem = () =>
  new DomainError(
    'conflict',
    'CartDuplicateItemError',
    'The same product, size and color is already in the cart',
  );

export const invalidProduct = (reason: string) =>
  new DomainError('invalid', 'CartInvalidProductError', `Invalid product data: ${reason}`);

export const cartItemNotFound = () =>
  new DomainError('not_found', 'CartItemNotFoundError', 'No such item in your cart');
