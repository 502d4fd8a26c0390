import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { SuiClient } from '@mysten/sui/client';
import {
  CartContractClient,
  createSuiClient,
  type CartContractClientOptions,
  type CartProductInput,
} from '@shop/chain';
// Workspace packages outside libs/ have no path alias, so the stand-in is imported by path.
import { startSuiSandbox, type SuiSandbox } from '../../../infra/sandbox/sui/src';

export interface Harness {
  sandbox: SuiSandbox;
  sui: SuiClient;
  cart: CartContractClient;
}

/** A fresh stand-in chain on a free port and a client whose relayer is the registry's. */
export async function startHarness(overrides: Partial<CartContractClientOptions> = {}): Promise<Harness> {
  const sandbox = await startSuiSandbox({ port: 0 });
  const sui = createSuiClient({ url: sandbox.url, requestTimeoutMs: 2_000 });
  const cart = new CartContractClient({
    client: sui,
    packageId: sandbox.packageId,
    registryId: sandbox.registryId,
    relayer: sandbox.relayer.secretKey ?? '',
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    localExecutionTimeoutMs: 1_000,
    ...overrides,
  });
  return { sandbox, sui, cart };
}

export const newUser = (): string => Ed25519Keypair.generate().toSuiAddress();

export function product(overrides: Partial<CartProductInput> = {}): CartProductInput {
  return {
    productId: 'B0TESTITEM',
    productName: 'Linen shirt',
    priceCents: 2_999n,
    imageUrl: 'https://images.example/linen.jpg',
    productUrl: 'https://shop.example/dp/B0TESTITEM',
    size: 'M',
    color: 'Blue',
    retailer: 'marketplace',
    ...overrides,
  };
}
