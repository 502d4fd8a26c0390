import { randomBytes } from 'node:crypto';
import { CreateOrderInput, emailOwner, ProviderClient, ProviderClientOptions } from '@shop/provider';
import { ProviderSandbox } from '../src';

export function clientFor(
  sandbox: ProviderSandbox,
  overrides: Partial<ProviderClientOptions> = {},
): ProviderClient {
  return new ProviderClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    timeoutMs: 2_000,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    ...overrides,
  });
}

/** A fresh address per test keeps wallets and balances from leaking between tests sharing a sandbox. */
export function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.com`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export async function walletFor(client: ProviderClient, email: string): Promise<string> {
  const wallet = await client.createWallet({
    owner: emailOwner(email),
    adminSigner: { type: 'email', email },
  });
  return wallet.address;
}

export function orderInput(
  payerAddress: string,
  email: string,
  prices: Array<string | undefined>,
): CreateOrderInput {
  return {
    recipient: {
      email,
      physicalAddress: {
        name: 'Ada Lovelace',
        line1: '1 Main St',
        city: 'Austin',
        state: 'TX',
        postalCode: '78701',
        country: 'US',
      },
    },
    payment: { method: 'base-sepolia', currency: 'usdc', payerAddress },
    lineItems: prices.map((price, index) => ({
      productLocator: `amazon:B0SANDBOX${index}`,
      ...(price === undefined ? {} : { callData: { totalPrice: price } }),
    })),
  };
}
