import type {
  SuiClient,
  SuiEvent,
  SuiTransactionBlockResponse,
  TransactionEffects,
} from '@mysten/sui/client';
import type { Keypair } from '@mysten/sui/cryptography';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { SUI_TYPE_ARG } from '@mysten/sui/utils';
import { ChainError, ChainExecutionError, ChainTransportError } from './errors';
import { backoffMs, type RetryPolicy } from '@shop/retry';
import { parseMoveAbort } from './move-abort';
import { isTransportFailure, sleep, toChainError, withTransportRetry } from './retry';

export interface SubmitterOptions {
  retry: RetryPolicy;
  /** A fixed budget skips the pre-flight dry run; aborts then surface from the executed transaction. */
  gasBudget?: bigint;
  /** Budget for the pre-flight dry run and the ceiling for the estimate it yields. */
  maxGasBudget: bigint;
  /** How long to wait for the fullnode to index an executed transaction before returning anyway. */
  localExecutionTimeoutMs: number;
}

export interface SubmittedTransaction {
  digest: string;
  effects: TransactionEffects;
  events: SuiEvent[];
}

/** Gas units added to the dry run's computation cost, as the SDK's own budget estimate does. */
const GAS_SAFE_OVERHEAD = 1000n;
/** The protocol's cap on gas payment objects per transaction (256) less one for safety. */
const MAX_GAS_COINS = 255;
const LOCAL_EXECUTION_POLL_MS = 100;
const EXECUTE_OPTIONS = { showEffects: true, showEvents: true } as const;

/**
 * Builds fully specified transactions (sender, gas price, budget and payment set here, so the
 * SDK resolves nothing behind our back), signs them with one key and executes them.
 *
 * Retrying a write: the signed bytes, and so the digest, are fixed before the first send. A
 * transport failure leaves the outcome unknown, so before sending again the digest is looked up;
 * a transaction the node already has is never sent twice, and an answer from the node (success,
 * failure or a JSON-RPC refusal) is never retried.
 */
export class TransactionSubmitter {
  readonly address: string;

  constructor(
    private readonly client: SuiClient,
    private readonly signer: Keypair,
    private readonly options: SubmitterOptions,
  ) {
    this.address = signer.toSuiAddress();
  }

  /**
   * `beforeExecute` learns the digest once the bytes are signed and before they are sent, so a
   * caller can record it first: after a crash, looking it up says whether the call happened.
   */
  async submit(
    compose: (tx: Transaction) => void,
    beforeExecute?: (digest: string) => Promise<void>,
  ): Promise<SubmittedTransaction> {
    const gasPrice = await this.read(() => this.client.getReferenceGasPrice());
    const budget = this.options.gasBudget ?? (await this.estimateBudget(compose, gasPrice));
    const tx = this.transaction(compose, gasPrice);
    tx.setGasBudget(budget);
    tx.setGasPayment(await this.gasCoinsCovering(budget));

    const bytes = await tx.build();
    const { signature } = await this.signer.signTransaction(bytes);
    const digest = TransactionDataBuilder.getDigestFromBytes(bytes);
    await beforeExecute?.(digest);
    const response = await this.execute(bytes, signature, digest);
    await this.awaitLocalExecution(digest);

    const effects = response.effects;
    if (!effects) throw new ChainError(`node returned no effects for ${digest}`);
    if (effects.status.status === 'failure') throw executionFailure(effects.status.error, digest);
    return { digest, effects, events: response.events ?? [] };
  }

  private transaction(compose: (tx: Transaction) => void, gasPrice: bigint): Transaction {
    const tx = new Transaction();
    tx.setSender(this.address);
    tx.setGasPrice(gasPrice);
    compose(tx);
    return tx;
  }

  /** Dry-runs the call so a Move abort costs no gas and the budget fits the call. */
  private async estimateBudget(compose: (tx: Transaction) => void, gasPrice: bigint): Promise<bigint> {
    const probe = this.transaction(compose, gasPrice);
    probe.setGasBudget(this.options.maxGasBudget);
    // An empty payment makes the node dry-run against a mock gas coin, as the SDK does.
    probe.setGasPayment([]);
    const bytes = await probe.build();
    const result = await this.read(() => this.client.dryRunTransactionBlock({ transactionBlock: bytes }));
    if (result.effects.status.status === 'failure')
      throw executionFailure(result.effects.status.error, undefined);

    const gas = result.effects.gasUsed;
    const computation = BigInt(gas.computationCost) + GAS_SAFE_OVERHEAD * gasPrice;
    const total = computation + BigInt(gas.storageCost) - BigInt(gas.storageRebate);
    const budget = total > computation ? total : computation;
    if (budget > this.options.maxGasBudget) {
      throw new ChainError(`estimated gas budget ${budget} exceeds the ceiling ${this.options.maxGasBudget}`);
    }
    return budget;
  }

  private async gasCoinsCovering(budget: bigint) {
    const chosen: { objectId: string; version: string; digest: string }[] = [];
    let total = 0n;
    let cursor: string | null | undefined = null;
    do {
      const page = await this.read(() =>
        this.client.getCoins({ owner: this.address, coinType: SUI_TYPE_ARG, cursor }),
      );
      for (const coin of page.data) {
        chosen.push({ objectId: coin.coinObjectId, version: coin.version, digest: coin.digest });
        total += BigInt(coin.balance);
        if (total >= budget) return chosen;
        if (chosen.length === MAX_GAS_COINS) break;
      }
      cursor = page.hasNextPage && chosen.length < MAX_GAS_COINS ? page.nextCursor : null;
    } while (cursor);
    throw new ChainError(`relayer ${this.address} holds ${total} MIST in usable gas coins, needs ${budget}`);
  }

  private async execute(
    bytes: Uint8Array,
    signature: string,
    digest: string,
  ): Promise<SuiTransactionBlockResponse> {
    const { maxAttempts: attempts } = this.options.retry;
    let lastFailure: unknown;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (attempt > 1) {
        await sleep(backoffMs(this.options.retry, attempt - 1));
        const landed = await this.findExecuted(digest);
        if (landed) return landed;
      }
      try {
        return await this.client.executeTransactionBlock({
          transactionBlock: bytes,
          signature,
          options: EXECUTE_OPTIONS,
        });
      } catch (error) {
        if (!isTransportFailure(error)) throw toChainError(error, attempt, digest);
        lastFailure = error;
      }
    }
    throw new ChainTransportError(
      `outcome of ${digest} unknown: Sui RPC unreachable after ${attempts} attempt(s)`,
      attempts,
      digest,
      { cause: lastFailure },
    );
  }

  /** The transaction if the node has it; null when it does not or cannot be asked right now. */
  private async findExecuted(digest: string): Promise<SuiTransactionBlockResponse | null> {
    try {
      return await this.client.getTransactionBlock({ digest, options: EXECUTE_OPTIONS });
    } catch {
      return null;
    }
  }

  /**
   * The node answers execute once effects are certified; a fullnode may index the transaction a
   * moment later. Waiting here gives the next call (gas coin versions, cart reads) a consistent
   * view. Not seeing it in time is not a failure of the transaction, whose effects we already hold.
   */
  private async awaitLocalExecution(digest: string): Promise<void> {
    try {
      await this.client.waitForTransaction({
        digest,
        timeout: this.options.localExecutionTimeoutMs,
        pollInterval: LOCAL_EXECUTION_POLL_MS,
      });
    } catch {
      return;
    }
  }

  private read<T>(operation: () => Promise<T>): Promise<T> {
    return withTransportRetry(this.options.retry, operation);
  }
}

function executionFailure(status: string | undefined, digest: string | undefined): ChainExecutionError {
  const error = status ?? 'unknown execution failure';
  return new ChainExecutionError(
    digest ? `transaction ${digest} failed: ${error}` : `dry run failed: ${error}`,
    error,
    digest,
    parseMoveAbort(error),
  );
}
