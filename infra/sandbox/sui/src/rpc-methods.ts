import type { CoinBalance, CoinStruct, PaginatedCoins, SuiMoveNormalizedFunction } from '@mysten/sui/client';
import { normalizeStructTag, normalizeSuiAddress, SUI_TYPE_ARG } from '@mysten/sui/utils';
import type { CoinMetadataRegistry } from './coin-metadata';
import { contract } from './contract';
import { coinBalance, type ChainSetup, type Executor } from './executor';
import type { Ledger } from './ledger';
import { normalizedType } from './move-types';
import { dynamicFieldKey } from './object-store';
import { renderObject, renderTransaction } from './rendering';
import { queryEvents } from './event-query';
import { INVALID_PARAMS, RpcError } from './rpc-error';
import type { TestWallets } from './test-wallets';

export type RpcHandler = (params: unknown[]) => unknown;

const MAX_COINS_PER_PAGE = 50;
const ALL_OBJECT_FIELDS = {
  showType: true,
  showOwner: true,
  showContent: true,
  showPreviousTransaction: true,
};

/**
 * The JSON-RPC methods @mysten/sui's SuiClient calls for the backend's needs: building, dry-running
 * and executing relayer transactions, reading objects, carts, transactions and events.
 */
export function rpcMethods(
  ledger: Ledger,
  executor: Executor,
  setup: ChainSetup & { chainIdentifier: string },
  coinMetadata: CoinMetadataRegistry,
  wallets: TestWallets,
) {
  const home = { packageId: setup.packageId, module: contract.cart.module };

  const methods: Record<string, RpcHandler> = {
    sui_getChainIdentifier: () => setup.chainIdentifier,

    suix_getReferenceGasPrice: () => String(setup.referenceGasPrice),

    suix_getCoinMetadata: ([coinType]) => (typeof coinType === 'string' ? coinMetadata.get(coinType) : null),

    sui_getObject: ([id, options]) => renderObject(ledger.objects, address(id, 'object_id'), options ?? {}),

    sui_multiGetObjects: ([ids, options]) => {
      if (!Array.isArray(ids))
        throw new RpcError(INVALID_PARAMS, 'Invalid params: object_ids must be an array');
      return ids.map((id) => renderObject(ledger.objects, address(id, 'object_id'), options ?? {}));
    },

    suix_getBalance: ([owner, coinType]): CoinBalance => {
      const type = typeof coinType === 'string' ? coinType : SUI_TYPE_ARG;
      const holder = address(owner, 'owner');
      return {
        coinType: type,
        coinObjectCount: wallets.coinCount(holder, type),
        totalBalance: String(wallets.balance(holder, type)),
        lockedBalance: {},
      };
    },

    suix_getCoins: ([owner, coinType, cursor, limit]): PaginatedCoins => {
      const holder = address(owner, 'owner');
      const wanted = normalizeStructTag(
        `0x2::coin::Coin<${typeof coinType === 'string' ? coinType : SUI_TYPE_ARG}>`,
      );
      const coins = ledger.objects
        .all()
        .filter((object) => {
          const objectOwner = object.owner;
          return (
            typeof objectOwner === 'object' &&
            'AddressOwner' in objectOwner &&
            normalizeSuiAddress(objectOwner.AddressOwner) === holder &&
            normalizeStructTag(object.type) === wanted
          );
        })
        .sort((a, b) => a.objectId.localeCompare(b.objectId))
        .filter((object) => typeof cursor !== 'string' || object.objectId > normalizeSuiAddress(cursor));
      const pageSize =
        typeof limit === 'number' && limit > 0 && limit <= MAX_COINS_PER_PAGE ? limit : MAX_COINS_PER_PAGE;
      const page = coins.slice(0, pageSize);
      return {
        data: page.map((object): CoinStruct => ({
          coinType: typeof coinType === 'string' ? coinType : SUI_TYPE_ARG,
          coinObjectId: object.objectId,
          version: String(object.version),
          digest: object.digest,
          balance: String(coinBalance(object)),
          previousTransaction: object.previousTransaction,
        })),
        nextCursor: page.at(-1)?.objectId ?? null,
        hasNextPage: coins.length > pageSize,
      };
    },

    suix_getDynamicFieldObject: ([parentId, name]) => {
      const parent = address(parentId, 'parent_object_id');
      const { type, value } = (name ?? {}) as { type?: unknown; value?: unknown };
      if (type !== 'address' || typeof value !== 'string') {
        throw new RpcError(
          INVALID_PARAMS,
          'Invalid params: the Sui stand-in resolves dynamic field names of type address',
        );
      }
      const childId = ledger.objects.get(parent)?.children[dynamicFieldKey(type, normalizeSuiAddress(value))];
      return childId
        ? renderObject(ledger.objects, childId, ALL_OBJECT_FIELDS)
        : { error: { code: 'dynamicFieldNotFound', parent_object_id: parent } };
    },

    sui_getNormalizedMoveFunction: ([pkg, module, name]): SuiMoveNormalizedFunction => {
      const fn =
        address(pkg, 'package') === setup.packageId && module === contract.cart.module
          ? contract.cart.functions.find((candidate) => candidate.name === name)
          : undefined;
      if (!fn) throw new RpcError(INVALID_PARAMS, `No function was found with function name ${String(name)}`);
      return {
        visibility: fn.visibility,
        isEntry: fn.isEntry,
        typeParameters: [],
        parameters: fn.parameters.map((param) => normalizedType(param.type, home)),
        return: [],
      };
    },

    sui_dryRunTransactionBlock: ([txBytes]) => executor.dryRun(String(txBytes)),

    sui_executeTransactionBlock: async ([txBytes, signatures, options]) =>
      renderTransaction(await executor.execute(String(txBytes), signatures as string[]), options ?? {}),

    sui_getTransactionBlock: ([digest, options]) => {
      const record = typeof digest === 'string' ? ledger.transaction(digest) : undefined;
      if (!record) {
        throw new RpcError(
          INVALID_PARAMS,
          `Could not find the referenced transaction [TransactionDigest(${String(digest)})].`,
        );
      }
      return renderTransaction(record, options ?? {});
    },

    suix_queryEvents: ([query, cursor, limit, descending]) =>
      queryEvents(ledger.events(), query, cursor, limit, descending),
  };
  return methods;
}

function address(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^(0x)?[0-9a-fA-F]{1,64}$/.test(value)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${name} must be a Sui address`);
  }
  return normalizeSuiAddress(value);
}
