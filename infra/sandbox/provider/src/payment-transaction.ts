import { encodeFunctionData, erc20Abi, Hex, serializeTransaction } from 'viem';
import { providerTreasury, SandboxChain } from './chains';

/**
 * The unsigned EIP-1559 transfer of the order total to the provider, shaped like the real
 * `payment.preparation.serializedTransaction` so clients can decode and show it.
 */
export function preparePaymentTransaction(chain: SandboxChain, amount: bigint): Hex {
  return serializeTransaction({
    type: 'eip1559',
    chainId: chain.chainId,
    to: chain.usdc,
    value: 0n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [providerTreasury, amount] }),
    nonce: 0,
    gas: 100_000n,
    maxFeePerGas: 1_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
  });
}
