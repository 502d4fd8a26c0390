import type { CartItemSnapshot } from '@shop/contracts';

/** The cart item an order in the decider tests was placed for. */
export const orderedItem: CartItemSnapshot = {
  productId: 'P1',
  productName: 'Product 1',
  price: 1999,
  image: 'https://img.example.com/1.jpg',
  size: 'Default',
  color: 'Default',
  productUrl: 'https://shop.example.com/p/1',
  retailer: 'Example',
};
