import type { BalanceChange, ExecutionStatus, SuiEvent, SuiTransaction } from '@mysten/sui/client';
import { normalizeSuiAddress, SUI_TYPE_ARG, toBase64 } from '@mysten/sui/utils';
import { contract } from './contract';
import { SUI_COIN_TYPE } from './executor';
import { COMPUTATION_UNITS_PER_COMMAND } from './gas';
import { randomDigest, randomObjectId } from './identifiers';
import type { Ledger } from './ledger';
import { encodeStruct } from './move-types';

export interface FixtureEvent {
  /** Full struct tag, `0x…::module::Name`. */
  type: string;
  parsedJson: Record<string, unknown>;
  /** Defaults to the package and module of the fixture's call. */
  packageId?: string;
  transactionModule?: string;
  /** Base64 BCS of the event; empty unless given. */
  bcs?: string;
}

/** A transaction recorded as if a node had executed it; only the stand-in's log changes. */
export interface TransactionFixture {
  sender: string;
  digest?: string;
  status?: ExecutionStatus;
  /** The Move call the transaction made, shown by `showInput` and used for events' `packageId`/module. */
  call?: { package: string; module: string; function: string };
  balanceChanges?: BalanceChange[];
  events?: FixtureEvent[];
  /** Gas charged to the sender, in MIST; it appears as a SUI balance change. */
  gasMist?: bigint;
}

export interface CreatePaymentInput {
  payer: string;
  receiver: string;
  amountMist: bigint;
  /** Coin type paid; the stand-in's own coin (testnet USDC unless configured) when unset. */
  coinType?: string;
  nonce: string;
  /** Package whose `payment::PaymentReceipt` is emitted; defaults to the stand-in's payment package. */
  packageId?: string;
  /** Record a transaction that aborted in `payment::pay`: no transfer, no receipt, gas still paid. */
  failed?: boolean;
  /** false: the transfer happens but no receipt event is emitted. */
  emitReceipt?: boolean;
}

/** The abort a failed payment fixture reports (the payment package's own code, not the cart's). */
const PAYMENT_ABORT_CODE = 1;

export class Fixtures {
  constructor(
    private readonly ledger: Ledger,
    private readonly setup: {
      paymentPackageId: string;
      coinType: string;
      referenceGasPrice: bigint;
      epoch: string;
    },
  ) {}

  addTransaction(fixture: TransactionFixture): string {
    const digest = fixture.digest ?? randomDigest();
    const sender = normalizeSuiAddress(fixture.sender);
    const call = fixture.call ?? { package: '0x2', module: 'sandbox', function: 'fixture' };
    const gasMist = fixture.gasMist ?? this.setup.referenceGasPrice * COMPUTATION_UNITS_PER_COMMAND;
    const gasCoin = { objectId: randomObjectId(), version: '1', digest: randomDigest() };
    const status = fixture.status ?? { status: 'success' };
    const events = (status.status === 'success' ? (fixture.events ?? []) : []).map(
      (event, seq): SuiEvent => ({
        id: { txDigest: digest, eventSeq: String(seq) },
        packageId: normalizeSuiAddress(event.packageId ?? call.package),
        transactionModule: event.transactionModule ?? call.module,
        sender,
        type: event.type,
        parsedJson: event.parsedJson,
        bcs: event.bcs ?? '',
        bcsEncoding: 'base64',
        timestampMs: null,
      }),
    );
    this.ledger.append({
      digest,
      signatures: [],
      input: {
        messageVersion: 'v1',
        sender,
        gasData: {
          owner: sender,
          price: String(this.setup.referenceGasPrice),
          budget: String(gasMist),
          payment: [gasCoin],
        },
        transaction: {
          kind: 'ProgrammableTransaction',
          inputs: [],
          // The SDK's generated MoveCallSuiTransaction type lost its `package` field; this is the node's shape.
          transactions: [{ MoveCall: { ...call, arguments: [] } } as unknown as SuiTransaction],
        },
      },
      effects: {
        messageVersion: 'v1',
        status,
        executedEpoch: this.setup.epoch,
        gasUsed: {
          computationCost: String(gasMist),
          storageCost: '0',
          storageRebate: '0',
          nonRefundableStorageFee: '0',
        },
        transactionDigest: digest,
        mutated: [{ owner: { AddressOwner: sender }, reference: gasCoin }],
        gasObject: { owner: { AddressOwner: sender }, reference: gasCoin },
        dependencies: [],
      },
      events,
      balanceChanges: [
        ...(gasMist
          ? [{ owner: { AddressOwner: sender }, coinType: SUI_TYPE_ARG, amount: String(-gasMist) }]
          : []),
        ...(status.status === 'success' ? (fixture.balanceChanges ?? []) : []),
      ],
      objectChanges: [
        {
          type: 'mutated',
          sender,
          owner: { AddressOwner: sender },
          objectType: SUI_COIN_TYPE,
          objectId: gasCoin.objectId,
          version: gasCoin.version,
          previousVersion: '0',
          digest: gasCoin.digest,
        },
      ],
    });
    return digest;
  }

  /** A `payment::pay` transaction: payer → receiver transfer plus a PaymentReceipt, or a variant. */
  createPayment(input: CreatePaymentInput): string {
    const packageId = normalizeSuiAddress(input.packageId ?? this.setup.paymentPackageId);
    const { module } = contract.payment;
    const payer = normalizeSuiAddress(input.payer);
    const receiver = normalizeSuiAddress(input.receiver);
    const amount = input.amountMist.toString();
    const coinType = input.coinType ?? this.setup.coinType;
    const receipt = { nonce: input.nonce, amount, receiver, payer, coin_type: coinType };
    return this.addTransaction({
      sender: payer,
      call: { package: packageId, module, function: 'pay' },
      status: input.failed
        ? {
            status: 'failure',
            error: `MoveAbort(MoveLocation { module: ModuleId { address: ${packageId.slice(2)}, name: Identifier("${module}") }, function: 0, instruction: 0, function_name: Some("pay") }, ${PAYMENT_ABORT_CODE}) in command 0`,
          }
        : { status: 'success' },
      balanceChanges: [
        { owner: { AddressOwner: payer }, coinType, amount: String(-input.amountMist) },
        { owner: { AddressOwner: receiver }, coinType, amount },
      ],
      events:
        input.emitReceipt === false
          ? []
          : [
              {
                type: `${packageId}::${module}::PaymentReceipt`,
                parsedJson: receipt,
                bcs: toBase64(
                  encodeStruct(contract.payment.events.PaymentReceipt.fields, receipt, { packageId, module }),
                ),
              },
            ],
    });
  }
}
