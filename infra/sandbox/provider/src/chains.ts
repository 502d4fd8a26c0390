import { Address } from 'viem';
import { baseSepolia, sepolia } from 'viem/chains';
import { stableAddress } from './ids';
import { ProviderApiError } from './provider-api-error';

export interface SandboxChain {
  name: string;
  chainId: number;
  /** Circle's USDC deployment on that testnet, so prepared transactions decode like real ones. */
  usdc: Address;
}

/** The stand-in plays the provider's staging environment, hence testnets only. */
const chains = new Map<string, SandboxChain>([
  [
    'base-sepolia',
    { name: 'base-sepolia', chainId: baseSepolia.id, usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
  ],
  [
    'ethereum-sepolia',
    { name: 'ethereum-sepolia', chainId: sepolia.id, usdc: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' },
  ],
]);

export const defaultChain = 'base-sepolia';

/** Where prepared order payments send the USDC. */
export const providerTreasury = stableAddress('provider-sandbox:treasury');

export function sandboxChainNames(): string[] {
  return [...chains.keys()];
}

export function chainOrReject(name: string): SandboxChain {
  const chain = chains.get(name);
  if (!chain) {
    throw new ProviderApiError(
      400,
      `chain ${name} is not supported; use one of ${sandboxChainNames().join(', ')}`,
    );
  }
  return chain;
}
