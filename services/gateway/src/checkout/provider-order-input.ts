import { CartItemSnapshot } from '@shop/contracts';
import { SavedShippingAddress } from '@shop/domain';
import { CreateOrderInput } from '@shop/provider';

const asin = /^[A-Za-z0-9]{10}$/;

/** Required by the provider for a physical order (state only for US addresses). */
export function missingAddressPart(address: SavedShippingAddress | null): string | null {
  if (!address) return 'shipping address';
  if (address.country === 'US' && !address.state) return 'shipping address (state)';
  return null;
}

/** Cents to the decimal string the provider quotes in ("89.99"). */
export function centsToDecimal(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/**
 * The provider order for one cart item: recipient from onboarding, the product as a line
 * item, USDC paid from the user's EVM wallet. Outside production the price goes along for
 * the local stand-in, which cannot look prices up (the real provider ignores it).
 */
export function providerOrderInput(options: {
  email: string;
  address: SavedShippingAddress;
  item: CartItemSnapshot;
  payerAddress: string;
  chain: string;
  includePrice: boolean;
}): CreateOrderInput {
  const { address, item } = options;
  return {
    recipient: {
      email: options.email,
      physicalAddress: {
        name: `${address.firstName} ${address.lastName}`,
        line1: address.street,
        ...(address.apt ? { line2: address.apt } : {}),
        city: address.city,
        ...(address.state ? { state: address.state } : {}),
        postalCode: address.zip,
        country: address.country,
      },
    },
    payment: {
      method: options.chain,
      currency: 'usdc',
      payerAddress: options.payerAddress,
      receiptEmail: options.email,
    },
    lineItems: [
      {
        productLocator: `amazon:${asin.test(item.productId) ? item.productId : item.productUrl}`,
        ...(options.includePrice ? { callData: { totalPrice: centsToDecimal(item.price) } } : {}),
      },
    ],
  };
}
