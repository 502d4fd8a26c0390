import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { contract } from './contract';
import { Executor, SUI_COIN_TYPE, type ChainSetup } from './executor';
import { CoinMetadataRegistry, TESTNET_USDC, type CoinDescription } from './coin-metadata';
import { FaultPlan, type FaultOptions } from './faults';
import { Fixtures, type CreatePaymentInput, type TransactionFixture } from './fixtures';
import { storageCostOf } from './gas';
import { GENESIS_DIGEST, randomObjectId } from './identifiers';
import { Ledger } from './ledger';
import type { StoredObject } from './object-store';
import { rpcMethods } from './rpc-methods';
import { startRpcServer } from './rpc-server';
import { registerSandboxRoutes } from './sandbox-routes';
import { TestWallets, type WalletPaymentInput } from './test-wallets';

export interface SuiSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The cart package id; random when unset. */
  packageId?: string;
  /** The shared CartRegistry object id; random when unset. */
  registryId?: string;
  /** The payment package `createPayment` emits receipts from by default; random when unset. */
  paymentPackageId?: string;
  /**
   * The coin `createPayment` pays in when its input names none, known to `suix_getCoinMetadata`
   * (as a 6-decimal USDC when not already known); testnet USDC when unset, the coin the existing
   * frontend deposits.
   */
  coinType?: string;
  /** The registry's relayer. When unset a keypair is generated and its secret key is on the handle. */
  relayerAddress?: string;
  /** Gas the relayer starts with, in MIST (one coin). */
  relayerGasMist?: bigint;
  referenceGasPrice?: bigint;
  chainIdentifier?: string;
}

export interface SandboxCartItem {
  itemId: string;
  productId: string;
  productName: string;
  priceCents: bigint;
  imageUrl: string;
  productUrl: string;
  size: string;
  color: string;
  retailer: string;
}

export interface SandboxCart {
  user: string;
  cartId: string;
  items: SandboxCartItem[];
}

export interface SuiSandbox {
  url: string;
  packageId: string;
  registryId: string;
  paymentPackageId: string;
  /** The coin payments carry unless a fixture names another. */
  coinType: string;
  chainIdentifier: string;
  referenceGasPrice: bigint;
  /** `secretKey` (suiprivkey…) only when the sandbox generated the relayer. */
  relayer: { address: string; secretKey: string | null };
  close(): Promise<void>;
  /** Gives `owner` a new SUI coin of `amountMist`; returns its object id. */
  fund(owner: string, amountMist: bigint): string;
  /** Mints `amountMist` of `coinType` to `owner` from the stand-in's faucet; returns the transfer's digest. */
  faucet(owner: string, coinType: string, amountMist: bigint): string;
  /** The payer's wallet pays through the payment package, spending its coins; returns the digest. */
  payFromWallet(input: WalletPaymentInput): string;
  /** What `owner`'s coins of `coinType` hold, in MIST. */
  balance(owner: string, coinType: string): bigint;
  /** Records a payment transaction (or a variant of one); returns its digest. */
  createPayment(input: CreatePaymentInput): string;
  /** Records an arbitrary transaction; returns its digest. */
  addTransaction(fixture: TransactionFixture): string;
  /** The next `count` requests (of `options.method`, or any) fail as `options.mode` says. */
  failNext(count: number, options?: FaultOptions): void;
  /** Drops every fault not applied yet and every latency. */
  clearFaults(): void;
  /** Slow mode: delay requests (of one method, or all) by `ms`; 0 turns it off. */
  setLatency(ms: number, options?: { method?: string }): void;
  /** Makes `suix_getCoinMetadata` know `coinType` (SUI and the USDC types are known already). */
  registerCoin(coinType: string, coin: CoinDescription): void;
  /** Every cart with its active items, as the chain holds them now. */
  carts(): SandboxCart[];
  /** Requests received for `method` (all methods when unset), faulted ones included. */
  requestCount(method?: string): number;
}

const REGISTRY_INITIAL_SHARED_VERSION = 3n;
const DEFAULT_RELAYER_GAS_MIST = 1_000_000_000_000n;
const DEFAULT_REFERENCE_GAS_PRICE = 750n;
const DEFAULT_CHAIN_IDENTIFIER = '5a4d1e0c';
const EPOCH = '1';

/**
 * Starts an in-memory Sui chain with the cart contract published, serving JSON-RPC on `url`.
 *
 * Simulated: signature checks (every required signer, Ed25519 and the SDK's other schemes),
 * gas price, budget, coin ownership and versions, lamport versioning, atomic execution of the
 * cart module's Move calls with the contract file's rules and abort codes, gas charging on
 * success and failure, idempotent re-execution of the same bytes, events and balance changes.
 * Not simulated: commands other than MoveCall, packages other than the cart package (payment
 * transactions exist only as recorded fixtures), raw BCS effects, epochs and checkpoints beyond
 * one checkpoint per transaction, and exact gas metering.
 */
export async function startSuiSandbox(options: SuiSandboxOptions = {}): Promise<SuiSandbox> {
  const generated = options.relayerAddress ? null : Ed25519Keypair.generate();
  const relayerAddress = normalizeSuiAddress(options.relayerAddress ?? generated?.toSuiAddress() ?? '');
  const setup: ChainSetup & { chainIdentifier: string; paymentPackageId: string; coinType: string } = {
    packageId: normalizeSuiAddress(options.packageId ?? randomObjectId()),
    registryId: normalizeSuiAddress(options.registryId ?? randomObjectId()),
    paymentPackageId: normalizeSuiAddress(options.paymentPackageId ?? randomObjectId()),
    coinType: normalizeStructTag(options.coinType ?? TESTNET_USDC),
    referenceGasPrice: options.referenceGasPrice ?? DEFAULT_REFERENCE_GAS_PRICE,
    chainIdentifier: options.chainIdentifier ?? DEFAULT_CHAIN_IDENTIFIER,
    epoch: EPOCH,
  };

  const ledger = new Ledger();
  const fund = (owner: string, amountMist: bigint): string => {
    const objectId = randomObjectId();
    ledger.objects.put(
      genesisObject({
        objectId,
        version: 1n,
        type: SUI_COIN_TYPE,
        owner: { AddressOwner: normalizeSuiAddress(owner) },
        fields: { id: { id: objectId }, balance: String(amountMist) },
      }),
    );
    return objectId;
  };
  ledger.objects.put(
    genesisObject({
      objectId: setup.registryId,
      version: REGISTRY_INITIAL_SHARED_VERSION,
      type: `${setup.packageId}::${contract.cart.module}::CartRegistry`,
      owner: { Shared: { initial_shared_version: String(REGISTRY_INITIAL_SHARED_VERSION) } },
      fields: { id: { id: setup.registryId }, relayer: relayerAddress, cart_count: '0' },
    }),
  );
  fund(relayerAddress, options.relayerGasMist ?? DEFAULT_RELAYER_GAS_MIST);

  const executor = new Executor(ledger, setup);
  const fixtures = new Fixtures(ledger, setup);
  const wallets = new TestWallets(ledger, fixtures);
  const faults = new FaultPlan();
  const coinMetadata = new CoinMetadataRegistry(setup.paymentPackageId, setup.coinType);
  const requests = new Map<string, number>();
  const server = await startRpcServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    methods: rpcMethods(ledger, executor, setup, coinMetadata, wallets),
    routes: (app) => registerSandboxRoutes(app, wallets),
    faults,
    onRequest: (method) => requests.set(method, (requests.get(method) ?? 0) + 1),
  });

  return {
    url: server.url,
    packageId: setup.packageId,
    registryId: setup.registryId,
    paymentPackageId: setup.paymentPackageId,
    coinType: setup.coinType,
    chainIdentifier: setup.chainIdentifier,
    referenceGasPrice: setup.referenceGasPrice,
    relayer: { address: relayerAddress, secretKey: generated?.getSecretKey() ?? null },
    close: () => server.close(),
    fund,
    faucet: (owner, coinType, amountMist) => wallets.faucet(owner, coinType, amountMist),
    payFromWallet: (input) => wallets.pay(input),
    balance: (owner, coinType) => wallets.balance(owner, coinType),
    createPayment: (input) => fixtures.createPayment(input),
    addTransaction: (fixture) => fixtures.addTransaction(fixture),
    failNext: (count, faultOptions) => faults.failNext(count, faultOptions),
    clearFaults: () => faults.clear(),
    setLatency: (ms, latencyOptions) => faults.setLatency(ms, latencyOptions),
    registerCoin: (coinType, coin) => coinMetadata.register(coinType, coin),
    carts: () => snapshotCarts(ledger, setup.registryId),
    requestCount: (method) =>
      method === undefined
        ? [...requests.values()].reduce((sum, n) => sum + n, 0)
        : (requests.get(method) ?? 0),
  };
}

function genesisObject(
  object: Pick<StoredObject, 'objectId' | 'version' | 'type' | 'owner' | 'fields'>,
): StoredObject {
  return {
    ...object,
    digest: GENESIS_DIGEST,
    children: {},
    storageCost: storageCostOf(object),
    previousTransaction: GENESIS_DIGEST,
  };
}

function snapshotCarts(ledger: Ledger, registryId: string): SandboxCart[] {
  const registry = ledger.objects.get(registryId);
  if (!registry) return [];
  return Object.values(registry.children).flatMap((cartId) => {
    const cart = ledger.objects.get(cartId);
    if (!cart) return [];
    const items = ((cart.fields.item_ids as string[]) ?? []).flatMap((itemId): SandboxCartItem[] => {
      const item = ledger.objects.get(itemId)?.fields;
      if (!item) return [];
      return [
        {
          itemId,
          productId: String(item.product_id),
          productName: String(item.product_name),
          priceCents: BigInt(String(item.price_cents)),
          imageUrl: String(item.image_url),
          productUrl: String(item.product_url),
          size: String(item.size),
          color: String(item.color),
          retailer: String(item.retailer),
        },
      ];
    });
    return [{ user: String(cart.fields.user), cartId, items }];
  });
}
