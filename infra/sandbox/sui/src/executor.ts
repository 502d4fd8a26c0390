import type {
  BalanceChange,
  DryRunTransactionBlockResponse,
  OwnedObjectRef,
  SuiEvent,
  SuiObjectChange,
  SuiObjectRef,
  TransactionBlockEffectsModifiedAtVersions,
  TransactionEffects,
} from '@mysten/sui/client';
import { Transaction, TransactionDataBuilder, type TransactionData } from '@mysten/sui/transactions';
import { fromBase64, normalizeSuiAddress, SUI_TYPE_ARG, toBase64 } from '@mysten/sui/utils';
import { verifyTransactionSignature } from '@mysten/sui/verify';
import { CartModule, MoveAbort, type CallArguments } from './cart-module';
import { contract, eventFields } from './contract';
import { COMPUTATION_UNITS_PER_COMMAND, MAX_GAS_BUDGET, rebateOf, storageCostOf } from './gas';
import { DELETED_OBJECT_DIGEST, GENESIS_DIGEST, randomDigest, randomObjectId } from './identifiers';
import type { Ledger, TransactionRecord, UnstampedRecord } from './ledger';
import { encodeStruct, pureSchema } from './move-types';
import { ObjectSession, type StoredObject } from './object-store';
import { INVALID_PARAMS, RpcError, TRANSACTION_REJECTED } from './rpc-error';
import { renderTransactionInput } from './transaction-input';

export const SUI_COIN_TYPE = `0x2::coin::Coin<${SUI_TYPE_ARG}>`;
const TX_CONTEXT = '&mut 0x2::tx_context::TxContext';
const INTEGER_TYPES = new Set(['u8', 'u16', 'u32', 'u64', 'u128', 'u256']);
/** Gas coin the node invents for a dry run without payment; its id is 0x0. */
const MOCK_GAS_COIN_ID = normalizeSuiAddress('0x0');

export interface ChainSetup {
  packageId: string;
  registryId: string;
  referenceGasPrice: bigint;
  epoch: string;
}

interface Prepared {
  data: TransactionData;
  digest: string;
  sender: string;
  gasOwner: string;
  price: bigint;
  budget: bigint;
  gasCoins: StoredObject[];
  shared: { objectId: string; mutable: boolean }[];
  inputVersions: Map<string, bigint>;
  pureTypes: Map<number, { type: string; home: { packageId: string; module: string } }>;
}

interface Outcome {
  record: UnstampedRecord;
  writes: StoredObject[];
  deletes: { objectId: string; version: bigint }[];
}

/** A failure inside execution: the transaction is recorded with this status and pays gas. */
class ExecutionFailure extends Error {}

/**
 * Checks and executes transaction bytes the way a validator would: refuses what the node refuses
 * before execution (bad signature, stale or foreign gas coins, gas price below the reference),
 * then runs the Move calls atomically and charges gas whether they succeed or abort.
 */
export class Executor {
  private readonly home: { packageId: string; module: string };
  private readonly cart: CartModule;

  constructor(
    private readonly ledger: Ledger,
    private readonly setup: ChainSetup,
  ) {
    this.home = { packageId: setup.packageId, module: contract.cart.module };
    this.cart = new CartModule(setup.packageId, setup.registryId);
  }

  /** Signed bytes, executed once: the same bytes again return the recorded transaction. */
  async execute(txBytes: string, signatures: string[]): Promise<TransactionRecord> {
    const bytes = decodeBytes(txBytes);
    const data = decodeTransaction(bytes);
    await verifySigners(bytes, data, signatures);
    const digest = TransactionDataBuilder.getDigestFromBytes(bytes);
    const existing = this.ledger.transaction(digest);
    if (existing) return existing;

    const outcome = this.run(this.prepare(data, digest, false), signatures);
    for (const object of outcome.writes) this.ledger.objects.put(object);
    for (const { objectId, version } of outcome.deletes) this.ledger.objects.remove(objectId, version);
    return this.ledger.append(outcome.record);
  }

  /** Executes without signatures and without keeping anything; an empty gas payment uses a mock coin. */
  dryRun(txBytes: string): DryRunTransactionBlockResponse {
    const bytes = decodeBytes(txBytes);
    const data = decodeTransaction(bytes);
    const { record } = this.run(
      this.prepare(data, TransactionDataBuilder.getDigestFromBytes(bytes), true),
      [],
    );
    return {
      effects: record.effects,
      events: record.events,
      balanceChanges: record.balanceChanges,
      objectChanges: record.objectChanges,
      input: record.input,
    };
  }

  private prepare(data: TransactionData, digest: string, dryRun: boolean): Prepared {
    if (!data.sender) throw new RpcError(INVALID_PARAMS, 'Invalid params: transaction has no sender');
    const sender = normalizeSuiAddress(data.sender);
    const gasOwner = normalizeSuiAddress(data.gasData.owner ?? data.sender);
    const price = BigInt(data.gasData.price ?? 0);
    const budget = BigInt(data.gasData.budget ?? 0);
    if (price < this.setup.referenceGasPrice) {
      throw new RpcError(
        TRANSACTION_REJECTED,
        `Gas price ${price} under reference gas price (RGP) ${this.setup.referenceGasPrice}`,
      );
    }
    const minimumBudget = price * COMPUTATION_UNITS_PER_COMMAND;
    if (budget < minimumBudget || budget > MAX_GAS_BUDGET) {
      throw new RpcError(
        TRANSACTION_REJECTED,
        `Gas budget ${budget} is outside [${minimumBudget}, ${MAX_GAS_BUDGET}]`,
      );
    }

    const pureTypes: Prepared['pureTypes'] = new Map();
    for (const command of data.commands) {
      if (!command.MoveCall) {
        throw new RpcError(
          INVALID_PARAMS,
          `the Sui stand-in executes MoveCall commands only, got ${command.$kind}`,
        );
      }
      const call = command.MoveCall;
      if (normalizeSuiAddress(call.package) !== this.setup.packageId) {
        throw new RpcError(
          TRANSACTION_REJECTED,
          `Package object does not exist with ID ${normalizeSuiAddress(call.package)}`,
        );
      }
      const params = this.functionSpec(call.module, call.function)?.parameters.filter(
        (p) => p.type !== TX_CONTEXT,
      );
      call.arguments.forEach((arg, position) => {
        const param = params?.[position];
        if (arg.$kind === 'Input' && param && pureSchema(param.type, this.home)) {
          pureTypes.set(arg.Input, { type: param.type, home: this.home });
        }
      });
    }

    const inputVersions = new Map<string, bigint>();
    const shared: Prepared['shared'] = [];
    data.inputs.forEach((input, index) => {
      const object = input.Object;
      if (!object) return;
      if (object.SharedObject) {
        const { objectId, initialSharedVersion, mutable } = object.SharedObject;
        const id = normalizeSuiAddress(objectId);
        const stored = this.existing(id);
        const owner = stored.owner;
        if (typeof owner !== 'object' || !('Shared' in owner)) {
          throw new RpcError(TRANSACTION_REJECTED, `Object ${id} is not a shared object`);
        }
        if (owner.Shared.initial_shared_version !== String(initialSharedVersion)) {
          throw new RpcError(
            TRANSACTION_REJECTED,
            `Shared object ${id} has initial shared version ${owner.Shared.initial_shared_version}, not ${initialSharedVersion}`,
          );
        }
        shared.push({ objectId: id, mutable });
        inputVersions.set(id, stored.version);
        return;
      }
      const ref = object.ImmOrOwnedObject;
      if (!ref)
        throw new RpcError(
          INVALID_PARAMS,
          `input ${index}: the Sui stand-in does not support ${object.$kind} inputs`,
        );
      const stored = this.ownedBy(ref, sender);
      inputVersions.set(stored.objectId, stored.version);
    });

    const payment = data.gasData.payment ?? [];
    if (payment.length === 0 && !dryRun)
      throw new RpcError(TRANSACTION_REJECTED, 'Transaction has no gas payment');
    const gasCoins = payment.length
      ? payment.map((ref) => this.ownedBy(ref, gasOwner))
      : [mockGasCoin(gasOwner, budget)];
    if (new Set(gasCoins.map((coin) => coin.objectId)).size !== gasCoins.length) {
      throw new RpcError(TRANSACTION_REJECTED, 'Gas payment lists the same coin twice');
    }
    for (const coin of gasCoins) {
      if (coin.type !== SUI_COIN_TYPE)
        throw new RpcError(TRANSACTION_REJECTED, `Gas object ${coin.objectId} is not a SUI coin`);
      inputVersions.set(coin.objectId, coin.version);
    }
    const balance = gasCoins.reduce((sum, coin) => sum + coinBalance(coin), 0n);
    if (balance < budget) {
      throw new RpcError(
        TRANSACTION_REJECTED,
        `Balance of gas object ${gasCoins[0]?.objectId} is lower than the needed amount: ${budget}`,
      );
    }
    return { data, digest, sender, gasOwner, price, budget, gasCoins, shared, inputVersions, pureTypes };
  }

  private existing(objectId: string): StoredObject {
    const stored = this.ledger.objects.get(objectId);
    if (!stored) throw new RpcError(TRANSACTION_REJECTED, `Could not find the referenced object ${objectId}`);
    return stored;
  }

  private ownedBy(
    ref: { objectId: string; version: string | number; digest: string },
    owner: string,
  ): StoredObject {
    const id = normalizeSuiAddress(ref.objectId);
    const stored = this.existing(id);
    if (stored.version !== BigInt(ref.version) || stored.digest !== ref.digest) {
      throw new RpcError(
        TRANSACTION_REJECTED,
        `Object ${id} is not available for consumption, its current version: ${stored.version}`,
      );
    }
    const holder = stored.owner;
    if (
      typeof holder !== 'object' ||
      !('AddressOwner' in holder) ||
      normalizeSuiAddress(holder.AddressOwner) !== owner
    ) {
      throw new RpcError(TRANSACTION_REJECTED, `Object ${id} is not owned by ${owner}`);
    }
    return stored;
  }

  private functionSpec(module: string, name: string) {
    return module === contract.cart.module
      ? contract.cart.functions.find((fn) => fn.name === name)
      : undefined;
  }

  private run(prepared: Prepared, signatures: string[]): Outcome {
    const { data, digest, sender } = prepared;
    const session = new ObjectSession(this.ledger.objects);
    const events: SuiEvent[] = [];
    let failure: string | null = null;
    try {
      data.commands.forEach((command, index) => this.runCommand(command, index, prepared, session, events));
    } catch (error) {
      if (!(error instanceof ExecutionFailure)) throw error;
      failure = error.message;
    }

    let settled = this.settle(prepared, failure === null ? session : null);
    if (failure === null && settled.exceedsBudget) {
      failure = 'InsufficientGas';
      settled = this.settle(prepared, null);
    }
    const { created, mutated, deleted, gasObject, gasUsed, charge, lamport, dependencies } = settled;

    const effects: TransactionEffects = {
      messageVersion: 'v1',
      status: failure === null ? { status: 'success' } : { status: 'failure', error: failure },
      executedEpoch: this.setup.epoch,
      gasUsed,
      modifiedAtVersions: settled.modifiedAtVersions,
      sharedObjects: prepared.shared.map(({ objectId }) => {
        const current = this.existing(objectId);
        return { objectId, version: String(current.version), digest: current.digest };
      }),
      transactionDigest: digest,
      ...nonEmpty('created', created.map(ownedRef)),
      ...nonEmpty('mutated', mutated.map(ownedRef)),
      ...nonEmpty(
        'deleted',
        deleted.map((objectId): SuiObjectRef => ({
          objectId,
          version: String(lamport),
          digest: DELETED_OBJECT_DIGEST,
        })),
      ),
      gasObject: ownedRef(gasObject),
      ...(failure === null && events.length ? { eventsDigest: randomDigest() } : {}),
      dependencies,
    };

    const objectChanges: SuiObjectChange[] = [
      ...mutated.map((object): SuiObjectChange => ({
        type: 'mutated',
        sender,
        owner: object.owner,
        objectType: object.type,
        objectId: object.objectId,
        version: String(object.version),
        previousVersion: String(
          prepared.inputVersions.get(object.objectId) ?? settled.readVersions.get(object.objectId),
        ),
        digest: object.digest,
      })),
      ...created.map((object): SuiObjectChange => ({
        type: 'created',
        sender,
        owner: object.owner,
        objectType: object.type,
        objectId: object.objectId,
        version: String(object.version),
        digest: object.digest,
      })),
      ...deleted.map((objectId): SuiObjectChange => ({
        type: 'deleted',
        sender,
        objectType: settled.deletedTypes.get(objectId) ?? '',
        objectId,
        version: String(lamport),
      })),
    ];
    const balanceChanges: BalanceChange[] =
      charge === 0n
        ? []
        : [{ owner: { AddressOwner: prepared.gasOwner }, coinType: SUI_TYPE_ARG, amount: String(-charge) }];

    return {
      record: {
        digest,
        input: renderTransactionInput(data, prepared.pureTypes),
        signatures,
        effects,
        events: failure === null ? events : [],
        balanceChanges,
        objectChanges,
      },
      writes: [...created, ...mutated],
      deletes: deleted.map((objectId) => ({ objectId, version: lamport })),
    };
  }

  private runCommand(
    command: TransactionData['commands'][number],
    index: number,
    prepared: Prepared,
    session: ObjectSession,
    events: SuiEvent[],
  ): void {
    const call = command.MoveCall;
    if (!call) throw new Error('prepare() admits MoveCall commands only');
    const functionIndex = contract.cart.functions.findIndex((fn) => fn.name === call.function);
    const fn = this.functionSpec(call.module, call.function);
    if (!fn) throw new ExecutionFailure(`FunctionNotFound in command ${index}`);
    if (call.typeArguments.length) throw new ExecutionFailure(`TypeArityMismatch in command ${index}`);
    const params = fn.parameters.filter((param) => param.type !== TX_CONTEXT);
    if (call.arguments.length !== params.length)
      throw new ExecutionFailure(`ArityMismatch in command ${index}`);

    const args: CallArguments = {};
    params.forEach((param, position) => {
      const argumentError = (kind: string) =>
        new ExecutionFailure(
          `CommandArgumentError { arg_idx: ${position}, kind: ${kind} } in command ${index}`,
        );
      const arg = call.arguments[position];
      const input = arg?.$kind === 'Input' ? prepared.data.inputs[arg.Input] : undefined;
      if (!input) throw argumentError('TypeMismatch');
      const schema = pureSchema(param.type, this.home);
      if (!schema) {
        const shared = input.Object?.SharedObject;
        if (!shared || normalizeSuiAddress(shared.objectId) !== this.setup.registryId)
          throw argumentError('TypeMismatch');
        if (!shared.mutable) throw argumentError('InvalidObjectByMutRef');
        args[param.name] = this.setup.registryId;
        return;
      }
      if (!input.Pure) throw argumentError('TypeMismatch');
      const bytes = fromBase64(input.Pure.bytes);
      let value: unknown;
      try {
        value = schema.parse(bytes);
      } catch {
        throw argumentError('InvalidBCSBytes');
      }
      // Trailing bytes or non-canonical encodings parse but do not re-encode to the same bytes.
      if (toBase64(schema.serialize(value).toBytes()) !== input.Pure.bytes)
        throw argumentError('InvalidBCSBytes');
      args[param.name] = INTEGER_TYPES.has(param.type) ? BigInt(String(value)) : String(value);
    });

    try {
      this.cart.call(fn, args, {
        session,
        sender: prepared.sender,
        newObjectId: randomObjectId,
        emit: (name, values) => events.push(this.event(name, values, prepared, events.length)),
      });
    } catch (error) {
      if (!(error instanceof MoveAbort)) throw error;
      // The node's Debug rendering; bytecode offsets are not simulated, so instruction is 0.
      throw new ExecutionFailure(
        `MoveAbort(MoveLocation { module: ModuleId { address: ${this.setup.packageId.slice(2)}, name: Identifier("${contract.cart.module}") }, function: ${functionIndex}, instruction: 0, function_name: Some("${fn.name}") }, ${error.code}) in command ${index}`,
      );
    }
  }

  private event(name: string, values: Record<string, string>, prepared: Prepared, seq: number): SuiEvent {
    return {
      id: { txDigest: prepared.digest, eventSeq: String(seq) },
      packageId: this.setup.packageId,
      transactionModule: contract.cart.module,
      sender: prepared.sender,
      type: `${this.setup.packageId}::${contract.cart.module}::${name}`,
      parsedJson: values,
      bcs: toBase64(encodeStruct(eventFields(name), values, this.home)),
      bcsEncoding: 'base64',
      timestampMs: null,
    };
  }

  /**
   * New versions of everything the transaction writes and the gas it costs. With no session (a
   * failed transaction) only the gas coins and the mutable shared inputs are written, unchanged
   * but at a new version, as on the chain.
   */
  private settle(prepared: Prepared, session: ObjectSession | null) {
    const changes = session?.changes();
    const created = changes?.created ?? [];
    const touched = new Map((changes?.mutated ?? []).map((object) => [object.objectId, object]));
    for (const { objectId, mutable } of prepared.shared) {
      if (mutable && !touched.has(objectId)) touched.set(objectId, structuredClone(this.existing(objectId)));
    }
    const [primary, ...merged] = prepared.gasCoins.map((coin) => structuredClone(coin));
    if (!primary) throw new Error('prepare() guarantees a gas coin');
    const deleted = [...(changes?.deleted ?? []), ...merged.map((coin) => coin.objectId)];
    const deletedTypes = new Map(
      deleted.map((objectId) => [objectId, this.ledger.objects.get(objectId)?.type ?? SUI_COIN_TYPE]),
    );

    const previousCosts = [
      ...[...touched.values()].map((object) => object.storageCost),
      ...deleted.map((objectId) => this.ledger.objects.get(objectId)?.storageCost ?? 0n),
      ...prepared.gasCoins.map((coin) => coin.storageCost),
    ];
    const { rebate, nonRefundable } = previousCosts.reduce(
      (sum, cost) => {
        const part = rebateOf(cost);
        return { rebate: sum.rebate + part.rebate, nonRefundable: sum.nonRefundable + part.nonRefundable };
      },
      { rebate: 0n, nonRefundable: 0n },
    );
    const computation =
      prepared.price * COMPUTATION_UNITS_PER_COMMAND * BigInt(Math.max(1, prepared.data.commands.length));
    const written = [...created, ...touched.values()];
    const storage = [...written, primary].reduce((sum, object) => sum + storageCostOf(object), 0n);
    const netCost = computation + storage - rebate;
    // The chain nets the rebate against the storage charge before holding it to the budget.
    const exceedsBudget = netCost > prepared.budget;
    const charge = session ? netCost : netCost < prepared.budget ? netCost : prepared.budget;

    const readVersions = changes?.readVersions ?? new Map<string, bigint>();
    const lamport =
      [...prepared.inputVersions.values(), ...readVersions.values()].reduce(
        (max, v) => (v > max ? v : max),
        0n,
      ) + 1n;
    const total = prepared.gasCoins.reduce((sum, coin) => sum + coinBalance(coin), 0n);
    primary.fields = { ...primary.fields, balance: String(total - charge) };

    const mutated = [...touched.values(), primary];
    for (const object of [...created, ...mutated]) {
      object.version = lamport;
      object.digest = randomDigest();
      object.previousTransaction = prepared.digest;
      object.storageCost = storageCostOf(object);
    }
    const modifiedAtVersions: TransactionBlockEffectsModifiedAtVersions[] = [
      ...mutated.map((object) => object.objectId),
      ...deleted,
    ].map((objectId) => ({
      objectId,
      sequenceNumber: String(prepared.inputVersions.get(objectId) ?? readVersions.get(objectId) ?? 0n),
    }));
    const dependencies = [
      ...new Set(
        [...prepared.inputVersions.keys(), ...readVersions.keys()]
          .map((objectId) => this.ledger.objects.get(objectId)?.previousTransaction)
          .filter((tx): tx is string => !!tx && tx !== GENESIS_DIGEST),
      ),
    ];
    return {
      created,
      mutated,
      deleted,
      deletedTypes,
      gasObject: primary,
      gasUsed: {
        computationCost: String(computation),
        storageCost: String(storage),
        storageRebate: String(rebate),
        nonRefundableStorageFee: String(nonRefundable),
      },
      charge,
      exceedsBudget,
      lamport,
      readVersions,
      modifiedAtVersions,
      dependencies,
    };
  }
}

function decodeBytes(txBytes: unknown): Uint8Array {
  if (typeof txBytes !== 'string')
    throw new RpcError(INVALID_PARAMS, 'Invalid params: tx_bytes must be base64');
  return fromBase64(txBytes);
}

function decodeTransaction(bytes: Uint8Array): TransactionData {
  try {
    return Transaction.from(bytes).getData();
  } catch {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: tx_bytes is not a BCS TransactionData');
  }
}

/** Every required signer (sender, and the gas owner when someone else pays) must have signed. */
async function verifySigners(bytes: Uint8Array, data: TransactionData, signatures: unknown): Promise<void> {
  if (!Array.isArray(signatures) || signatures.some((s) => typeof s !== 'string')) {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: signatures must be an array of base64 strings');
  }
  const signers = new Set<string>();
  for (const signature of signatures as string[]) {
    try {
      const publicKey = await verifyTransactionSignature(bytes, signature);
      signers.add(publicKey.toSuiAddress());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RpcError(TRANSACTION_REJECTED, `Invalid user signature: Signature is not valid: ${reason}`);
    }
  }
  const required = new Set(
    [data.sender, data.gasData.owner ?? data.sender].map((a) => normalizeSuiAddress(a ?? '')),
  );
  for (const address of required) {
    if (!signers.has(address)) {
      throw new RpcError(
        TRANSACTION_REJECTED,
        `Invalid user signature: Required Signature from ${address} is absent`,
      );
    }
  }
  if (signers.size !== required.size) {
    throw new RpcError(
      TRANSACTION_REJECTED,
      'Invalid user signature: signature from an address that is not a signer',
    );
  }
}

function mockGasCoin(owner: string, balance: bigint): StoredObject {
  return {
    objectId: MOCK_GAS_COIN_ID,
    version: 0n,
    digest: GENESIS_DIGEST,
    type: SUI_COIN_TYPE,
    owner: { AddressOwner: owner },
    fields: { id: { id: MOCK_GAS_COIN_ID }, balance: String(balance) },
    children: {},
    storageCost: 0n,
    previousTransaction: GENESIS_DIGEST,
  };
}

export function coinBalance(coin: Pick<StoredObject, 'fields'>): bigint {
  return BigInt(String(coin.fields.balance));
}

function ownedRef(object: StoredObject): OwnedObjectRef {
  return {
    owner: object.owner,
    reference: { objectId: object.objectId, version: String(object.version), digest: object.digest },
  };
}

function nonEmpty<K extends string, T>(key: K, items: T[]): Partial<Record<K, T[]>> {
  return items.length ? ({ [key]: items } as Record<K, T[]>) : {};
}
