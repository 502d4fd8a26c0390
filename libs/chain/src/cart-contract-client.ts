import type { SuiClient } from '@mysten/sui/client';
import type { Keypair } from '@mysten/sui/cryptography';
import { normalizeAddress, sameAddress } from './addresses';
import { encodeCallArguments, type CallValue, type SharedObject } from './call-arguments';
import { readCart, type CartObject } from './cart-object';
import { abortNameOf, cartContract, cartFunction, type CartFunctionName } from './contract-interface';
import {
  parseContractEvent,
  queryContractEvents,
  type ContractEvent,
  type ContractEventPage,
  type EventCursor,
} from './contract-events';
import { ChainAbortError, ChainError, ChainExecutionError, ChainInputError, ChainRpcError } from './errors';
import { parseMoveAbort } from './move-abort';
import { relayerKeypair } from './relayer-key';
import { defaultRetryPolicy, type RetryPolicy } from '@shop/retry';
import { withTransportRetry } from './retry';
import { TransactionSubmitter } from './transaction-submitter';

export interface CartContractClientOptions {
  client: SuiClient;
  /** CHAIN_CONTRACT_ADDRESS: the package that publishes the cart module. */
  packageId: string;
  /** CHAIN_CART_REGISTRY_ID: the shared CartRegistry object. */
  registryId: string;
  /** The relayer, which signs and pays for every call: a keypair or a key string (see decodeRelayerSecretKey). */
  relayer: Keypair | string;
  retry?: Partial<RetryPolicy>;
  /** Fixed gas budget in MIST; when unset each call is dry-run first to size it. */
  gasBudget?: bigint;
  /** Ceiling for estimated budgets, in MIST. */
  maxGasBudget?: bigint;
  localExecutionTimeoutMs?: number;
}

export interface CartProductInput {
  productId: string;
  productName: string;
  priceCents: bigint | number;
  imageUrl: string;
  productUrl: string;
  size: string;
  color: string;
  retailer: string;
}

export interface ContractCallResult {
  digest: string;
  events: ContractEvent[];
}

const DEFAULT_MAX_GAS_BUDGET = 500_000_000n;
const DEFAULT_LOCAL_EXECUTION_TIMEOUT_MS = 5_000;
const MAX_EVENTS_PER_PAGE = 50;

/**
 * The backend's relayer for the on-chain cart: calls the contract's entry functions on behalf of
 * users (identified by their wallet address), reads cart state and pages through contract events.
 *
 * Calls are sent one at a time: they all pay gas from the relayer's coins, and two transactions
 * built from the same coin versions would conflict on chain.
 */
export class CartContractClient {
  readonly packageId: string;
  readonly registryId: string;
  readonly relayerAddress: string;
  private readonly retry: RetryPolicy;
  private readonly submitter: TransactionSubmitter;
  private registry: Promise<SharedObject> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: CartContractClientOptions) {
    this.packageId = normalizeAddress(options.packageId);
    this.registryId = normalizeAddress(options.registryId);
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    const signer = typeof options.relayer === 'string' ? relayerKeypair(options.relayer) : options.relayer;
    this.submitter = new TransactionSubmitter(options.client, signer, {
      retry: this.retry,
      gasBudget: options.gasBudget,
      maxGasBudget: options.maxGasBudget ?? DEFAULT_MAX_GAS_BUDGET,
      localExecutionTimeoutMs: options.localExecutionTimeoutMs ?? DEFAULT_LOCAL_EXECUTION_TIMEOUT_MS,
    });
    this.relayerAddress = this.submitter.address;
  }

  async initCart(user: string): Promise<ContractCallResult & { cartId: string }> {
    const result = await this.call('init_cart', { user: userAddress(user) });
    const created = findEvent(result, 'CartCreated');
    return { ...result, cartId: created.cartId };
  }

  async addItem(
    user: string,
    product: CartProductInput,
  ): Promise<ContractCallResult & { cartId: string; itemId: string }> {
    const result = await this.call('add_item', {
      user: userAddress(user),
      product_id: product.productId,
      product_name: product.productName,
      price_cents: priceCents(product.priceCents),
      image_url: product.imageUrl,
      product_url: product.productUrl,
      size: product.size,
      color: product.color,
      retailer: product.retailer,
    });
    const added = findEvent(result, 'CartItemAdded');
    return { ...result, cartId: added.cartId, itemId: added.itemId };
  }

  async removeItem(user: string, itemId: string): Promise<ContractCallResult> {
    return this.call('remove_item', { user: userAddress(user), item_id: objectId(itemId) });
  }

  /**
   * Records the purchase of one cart item under the backend's order id. `beforeExecute` gets the
   * transaction's digest before it is sent (see TransactionSubmitter.submit).
   */
  async checkout(
    user: string,
    orderId: string,
    itemId: string,
    beforeExecute?: (digest: string) => Promise<void>,
  ): Promise<ContractCallResult> {
    return this.call(
      'checkout',
      { user: userAddress(user), order_id: orderId, item_id: objectId(itemId) },
      beforeExecute,
    );
  }

  /**
   * What became of a call whose answer was lost: its result, the chain's failure, or null when
   * the node does not know the digest (the call never arrived, or has not been executed yet).
   */
  async transactionOutcome(digest: string): Promise<ContractCallResult | null> {
    let response;
    try {
      response = await withTransportRetry(this.retry, () =>
        this.options.client.getTransactionBlock({ digest, options: { showEffects: true, showEvents: true } }),
      );
    } catch (error) {
      if (error instanceof ChainRpcError) return null;
      throw error;
    }
    const status = response.effects?.status;
    if (!status) return null;
    if (status.status === 'failure') {
      const reason = status.error ?? 'unknown execution failure';
      throw this.namedAbort(
        new ChainExecutionError(
          `transaction ${digest} failed: ${reason}`,
          reason,
          digest,
          parseMoveAbort(reason),
        ),
      );
    }
    return {
      digest,
      events: (response.events ?? []).map((event) => parseContractEvent(event, this.packageId)),
    };
  }

  /** The user's cart (object id, items), or null when init_cart has not run for them. */
  async getCart(user: string): Promise<CartObject | null> {
    return readCart(this.options.client, this, userAddress(user), this.retry);
  }

  /** Contract events after `cursor` (null: from the first), oldest first. */
  async queryContractEvents(
    cursor: EventCursor | null,
    limit: number = MAX_EVENTS_PER_PAGE,
  ): Promise<ContractEventPage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_PER_PAGE) {
      throw new ChainInputError(`limit must be an integer from 1 to ${MAX_EVENTS_PER_PAGE}`);
    }
    return queryContractEvents(this.options.client, this.packageId, cursor, limit, this.retry);
  }

  private call(
    name: CartFunctionName,
    values: Record<string, CallValue>,
    beforeExecute?: (digest: string) => Promise<void>,
  ): Promise<ContractCallResult> {
    const run = async (): Promise<ContractCallResult> => {
      const fn = cartFunction(name);
      const registry = await this.registryObject();
      try {
        const submitted = await this.submitter.submit((tx) => {
          tx.moveCall({
            target: `${this.packageId}::${cartContract.cart.module}::${fn.name}`,
            arguments: encodeCallArguments(tx, fn, values, registry),
          });
        }, beforeExecute);
        return {
          digest: submitted.digest,
          events: submitted.events.map((event) => parseContractEvent(event, this.packageId)),
        };
      } catch (error) {
        throw this.namedAbort(error);
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Gives an abort raised by this package's cart module the contract's name for its code. */
  private namedAbort(error: unknown): unknown {
    if (!(error instanceof ChainExecutionError) || !error.moveAbort) return error;
    const abort = error.moveAbort;
    if (!sameAddress(abort.packageId, this.packageId) || abort.module !== cartContract.cart.module)
      return error;
    const abortName = abortNameOf(abort.code);
    if (!abortName) return error;
    return new ChainAbortError(
      abortName,
      Number(abort.code),
      abort.functionName,
      error.status,
      error.digest,
      abort,
    );
  }

  /** The registry's shared-object reference, read once; a failed read is retried on the next call. */
  private registryObject(): Promise<SharedObject> {
    if (!this.registry) {
      const pending = withTransportRetry(this.retry, () =>
        this.options.client.getObject({ id: this.registryId, options: { showOwner: true } }),
      ).then((response): SharedObject => {
        const owner = response.data?.owner;
        if (!owner || typeof owner !== 'object' || !('Shared' in owner)) {
          throw new ChainError(
            `registry ${this.registryId} is not a shared object: ${JSON.stringify(response.error ?? owner)}`,
          );
        }
        return { objectId: this.registryId, initialSharedVersion: owner.Shared.initial_shared_version };
      });
      pending.catch(() => {
        if (this.registry === pending) this.registry = null;
      });
      this.registry = pending;
    }
    return this.registry;
  }
}

function findEvent<K extends ContractEvent['kind']>(
  result: ContractCallResult,
  kind: K,
): Extract<ContractEvent, { kind: K }> {
  const event = result.events.find(
    (candidate): candidate is Extract<ContractEvent, { kind: K }> => candidate.kind === kind,
  );
  if (!event) throw new ChainError(`transaction ${result.digest} succeeded without a ${kind} event`);
  return event;
}

function userAddress(user: string): string {
  try {
    return normalizeAddress(user);
  } catch {
    throw new ChainInputError(`user must be a Sui address, got ${JSON.stringify(user)}`);
  }
}

function objectId(id: string): string {
  try {
    return normalizeAddress(id);
  } catch {
    throw new ChainInputError(`item id must be a Sui object id, got ${JSON.stringify(id)}`);
  }
}

function priceCents(value: bigint | number): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new ChainInputError(`priceCents must be an integer, got ${value}`);
  }
  const cents = BigInt(value);
  if (cents < 0n || cents >= 2n ** 64n) throw new ChainInputError(`priceCents must fit a u64, got ${cents}`);
  return cents;
}
