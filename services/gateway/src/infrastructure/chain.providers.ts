import type { Provider } from '@nestjs/common';
import type { SuiClient } from '@mysten/sui/client';
import { CartContractClient, createSuiClient } from '@shop/chain';
import type { GatewayConfig } from '@shop/config';
import { CART_CONTRACT, SUI_CLIENT } from './tokens';

/** The chain's JSON-RPC client, or null without CHAIN_RPC_URL. */
export function suiClientProvider(config: GatewayConfig): Provider {
  return {
    provide: SUI_CLIENT,
    useValue: config.CHAIN_RPC_URL
      ? createSuiClient({ url: config.CHAIN_RPC_URL, requestTimeoutMs: config.CHAIN_RPC_TIMEOUT_MS })
      : null,
  };
}

/** The on-chain cart contract, or null unless its address, registry and relayer key are all configured. */
export function cartContractProvider(config: GatewayConfig): Provider {
  return {
    provide: CART_CONTRACT,
    inject: [SUI_CLIENT],
    useFactory: (client: SuiClient | null) =>
      client &&
      config.CHAIN_CONTRACT_ADDRESS &&
      config.CHAIN_CART_REGISTRY_ID &&
      config.CHAIN_RELAYER_PRIVATE_KEY
        ? new CartContractClient({
            client,
            packageId: config.CHAIN_CONTRACT_ADDRESS,
            registryId: config.CHAIN_CART_REGISTRY_ID,
            relayer: config.CHAIN_RELAYER_PRIVATE_KEY,
          })
        : null,
  };
}
