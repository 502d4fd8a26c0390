import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { runService } from '@shop/run-service';
import { startSuiSandbox } from './sandbox';

/*
 * Runs the stand-in alone for local development. The relayer is the key in
 * CHAIN_RELAYER_PRIVATE_KEY (suiprivkey1… form) when set, so the gateway's configuration works
 * unchanged; otherwise a fresh key is generated and printed to put there.
 */
runService('sandbox-sui', async () => {
  const configuredKey = process.env.CHAIN_RELAYER_PRIVATE_KEY;
  const sandbox = await startSuiSandbox({
    port: Number(process.env.PORT ?? 4030),
    host: process.env.HOST ?? '127.0.0.1',
    packageId: process.env.CHAIN_CONTRACT_ADDRESS,
    registryId: process.env.CHAIN_CART_REGISTRY_ID,
    paymentPackageId: process.env.CHAIN_PAYMENT_PACKAGE_ID,
    // The services accept exactly CHAIN_COIN_TYPE for deposits, so the stand-in pays in it too.
    coinType: process.env.CHAIN_COIN_TYPE || undefined,
    relayerAddress: configuredKey ? Ed25519Keypair.fromSecretKey(configuredKey).toSuiAddress() : undefined,
  });
  const lines = [
    `Sui stand-in listening on ${sandbox.url}`,
    `CHAIN_RPC_URL=${sandbox.url}`,
    `CHAIN_CONTRACT_ADDRESS=${sandbox.packageId}`,
    `CHAIN_CART_REGISTRY_ID=${sandbox.registryId}`,
    `CHAIN_PAYMENT_PACKAGE_ID=${sandbox.paymentPackageId}`,
    `CHAIN_COIN_TYPE=${sandbox.coinType}`,
    `relayer address ${sandbox.relayer.address}`,
    ...(sandbox.relayer.secretKey ? [`CHAIN_RELAYER_PRIVATE_KEY=${sandbox.relayer.secretKey}`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return { stop: () => sandbox.close() };
});
