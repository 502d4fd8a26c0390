import type {
  MoveStruct,
  SuiObjectDataOptions,
  SuiObjectResponse,
  SuiTransactionBlockResponse,
  SuiTransactionBlockResponseOptions,
} from '@mysten/sui/client';
import type { TransactionRecord } from './ledger';
import type { ObjectStore, StoredObject } from './object-store';

/** An object as `sui_getObject` answers, with only the parts the options ask for. */
export function renderObject(
  store: ObjectStore,
  objectId: string,
  options: SuiObjectDataOptions = {},
): SuiObjectResponse {
  const object = store.get(objectId);
  if (!object) {
    const tombstone = store.tombstone(objectId);
    return tombstone
      ? {
          error: {
            code: 'deleted',
            object_id: objectId,
            version: String(tombstone.version),
            digest: tombstone.digest,
          },
        }
      : { error: { code: 'notExists', object_id: objectId } };
  }
  return { data: objectData(object, options) };
}

function objectData(
  object: StoredObject,
  options: SuiObjectDataOptions,
): NonNullable<SuiObjectResponse['data']> {
  return {
    objectId: object.objectId,
    version: String(object.version),
    digest: object.digest,
    ...(options.showType ? { type: object.type } : {}),
    ...(options.showOwner ? { owner: object.owner } : {}),
    ...(options.showPreviousTransaction ? { previousTransaction: object.previousTransaction } : {}),
    ...(options.showStorageRebate ? { storageRebate: String(object.storageCost) } : {}),
    ...(options.showContent
      ? {
          content: {
            dataType: 'moveObject' as const,
            type: object.type,
            hasPublicTransfer: false,
            fields: object.fields as MoveStruct,
          },
        }
      : {}),
  };
}

/** A recorded transaction as `sui_getTransactionBlock` / execute answer, per the show* options. */
export function renderTransaction(
  record: TransactionRecord,
  options: SuiTransactionBlockResponseOptions = {},
): SuiTransactionBlockResponse {
  return {
    digest: record.digest,
    timestampMs: record.timestampMs,
    checkpoint: record.checkpoint,
    ...(options.showInput ? { transaction: { data: record.input, txSignatures: record.signatures } } : {}),
    ...(options.showEffects ? { effects: record.effects } : {}),
    ...(options.showEvents ? { events: record.events } : {}),
    ...(options.showBalanceChanges ? { balanceChanges: record.balanceChanges } : {}),
    ...(options.showObjectChanges ? { objectChanges: record.objectChanges } : {}),
  };
}
