import type { ObjectOwner, SuiClient } from '@mysten/sui/client';
import { isValidTransactionDigest } from '@mysten/sui/utils';
import { normalizeAddress } from './addresses';
import { parseMist } from './amounts';
import type { EventCursor } from './contract-events';
import { ChainError, ChainInputError, ChainRpcError } from './errors';
import { defaultRetryPolicy, type RetryPolicy } from '@shop/retry';
import { withTransportRetry } from './retry';

export interface BalanceChange {
  /** The owning address, or null for balances held by shared or immutable objects. */
  owner: string | null;
  coinType: string;
  /** Signed, in the coin's base units: negative means sent. */
  amount: bigint;
}

export interface ChainEvent {
  id: EventCursor;
  /** Full struct tag as the node reports it, e.g. `0x…::payment::PaymentReceipt`. */
  type: string;
  packageId: string;
  /** Module of the called function that emitted it. */
  module: string;
  sender: string;
  parsedJson: unknown;
}

export interface ChainTransaction {
  digest: string;
  status: 'success' | 'failure';
  /** The node's failure text (e.g. a MoveAbort) when status is failure. */
  error: string | null;
  sender: string | null;
  timestampMs: number | null;
  checkpoint: string | null;
  balanceChanges: BalanceChange[];
  events: ChainEvent[];
}

const NOT_FOUND = /Could not find the referenced transaction/i;

/**
 * A transaction's outcome, balance changes and events; null when the node does not know the
 * digest (not executed, or not yet indexed by this fullnode).
 */
export async function getTransaction(
  client: SuiClient,
  digest: string,
  retry: RetryPolicy = defaultRetryPolicy,
): Promise<ChainTransaction | null> {
  if (!isValidTransactionDigest(digest))
    throw new ChainInputError('not a transaction digest (base58 of 32 bytes)');
  let response;
  try {
    response = await withTransportRetry(retry, () =>
      client.getTransactionBlock({
        digest,
        options: { showInput: true, showEffects: true, showEvents: true, showBalanceChanges: true },
      }),
    );
  } catch (error) {
    if (error instanceof ChainRpcError && NOT_FOUND.test(error.message)) return null;
    throw error;
  }
  const status = response.effects?.status;
  if (!status) throw new ChainError(`node returned no effects for ${digest}`);
  return {
    digest: response.digest,
    status: status.status,
    error: status.error ?? null,
    sender: response.transaction ? normalizeAddress(response.transaction.data.sender) : null,
    timestampMs: response.timestampMs ? Number(response.timestampMs) : null,
    checkpoint: response.checkpoint ?? null,
    balanceChanges: (response.balanceChanges ?? []).map((change) => ({
      owner: ownerAddress(change.owner),
      coinType: change.coinType,
      amount: parseMist(change.amount),
    })),
    events: (response.events ?? []).map((event) => ({
      id: { txDigest: event.id.txDigest, eventSeq: event.id.eventSeq },
      type: event.type,
      packageId: normalizeAddress(event.packageId),
      module: event.transactionModule,
      sender: normalizeAddress(event.sender),
      parsedJson: event.parsedJson,
    })),
  };
}

function ownerAddress(owner: ObjectOwner): string | null {
  if (typeof owner !== 'object') return null;
  if ('AddressOwner' in owner) return normalizeAddress(owner.AddressOwner);
  if ('ConsensusAddressOwner' in owner) return normalizeAddress(owner.ConsensusAddressOwner.owner);
  return null;
}
