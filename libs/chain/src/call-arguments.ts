import type { Transaction, TransactionArgument } from '@mysten/sui/transactions';
import { cartContract, type CartFunctionSpec } from './contract-interface';

export type CallValue = string | bigint;

export interface SharedObject {
  objectId: string;
  initialSharedVersion: string;
}

const REGISTRY = '&mut CartRegistry';
const TX_CONTEXT = '&mut 0x2::tx_context::TxContext';

type Encoder = (tx: Transaction, value: CallValue) => TransactionArgument;

const text = (value: CallValue): string => {
  if (typeof value !== 'string') throw new TypeError(`expected a string argument, got ${typeof value}`);
  return value;
};
const integer = (value: CallValue): bigint => {
  if (typeof value !== 'bigint') throw new TypeError(`expected a bigint argument, got ${typeof value}`);
  return value;
};

const PURE_ENCODERS: Record<string, Encoder> = {
  address: (tx, value) => tx.pure.address(text(value)),
  '0x2::object::ID': (tx, value) => tx.pure.id(text(value)),
  '0x1::string::String': (tx, value) => tx.pure.string(text(value)),
  u64: (tx, value) => tx.pure.u64(integer(value)),
};

for (const fn of cartContract.cart.functions) {
  for (const param of fn.parameters) {
    if (param.type !== REGISTRY && param.type !== TX_CONTEXT && !PURE_ENCODERS[param.type]) {
      throw new Error(`${fn.name}(${param.name}): the client cannot encode Move type ${param.type}`);
    }
  }
}

/**
 * The arguments of a call in the order and with the types the contract file gives, values looked
 * up by parameter name: a reordered or retyped parameter in the contract file changes the
 * encoding here instead of silently shifting values.
 */
export function encodeCallArguments(
  tx: Transaction,
  fn: CartFunctionSpec,
  values: Record<string, CallValue>,
  registry: SharedObject,
): TransactionArgument[] {
  return fn.parameters
    .filter((param) => param.type !== TX_CONTEXT)
    .map((param) => {
      if (param.type === REGISTRY) return tx.sharedObjectRef({ ...registry, mutable: true });
      const value = values[param.name];
      const encode = PURE_ENCODERS[param.type];
      if (value === undefined || !encode)
        throw new TypeError(`${fn.name}: no value for parameter ${param.name}`);
      return encode(tx, value);
    });
}
