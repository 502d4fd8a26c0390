import type { SuiCallArg, SuiTransaction, TransactionBlockData } from '@mysten/sui/client';
import type { TransactionData } from '@mysten/sui/transactions';
import { fromBase64 } from '@mysten/sui/utils';
import { pureSchema } from './move-types';

/**
 * A decoded transaction as `showInput` renders it. Pure inputs whose Move type is known from the
 * call they feed are shown decoded, others as bytes, as the node does when it cannot tell.
 */
export function renderTransactionInput(
  data: TransactionData,
  pureTypes: Map<number, { type: string; home: { packageId: string; module: string } }>,
): TransactionBlockData {
  const inputs = data.inputs.map((input, index): SuiCallArg => {
    if (input.Pure) {
      const bytes = fromBase64(input.Pure.bytes);
      const known = pureTypes.get(index);
      const schema = known ? pureSchema(known.type, known.home) : null;
      if (known && schema) {
        try {
          return { type: 'pure', valueType: known.type, value: schema.parse(bytes) };
        } catch {
          // Bytes that do not decode as the expected type are shown raw, as the node would.
        }
      }
      return { type: 'pure', valueType: null, value: [...bytes] };
    }
    const object = input.Object;
    if (object?.SharedObject) {
      const { objectId, initialSharedVersion, mutable } = object.SharedObject;
      return {
        type: 'object',
        objectType: 'sharedObject',
        objectId,
        initialSharedVersion: String(initialSharedVersion),
        mutable,
      };
    }
    const ref = object?.ImmOrOwnedObject ?? object?.Receiving;
    if (!ref) throw new Error(`input ${index} is unresolved`);
    return {
      type: 'object',
      objectType: object?.Receiving ? 'receiving' : 'immOrOwnedObject',
      objectId: ref.objectId,
      version: String(ref.version),
      digest: ref.digest,
    };
  });

  const transactions = data.commands.map((command): SuiTransaction => {
    // The executor refuses any other command, so none is ever recorded.
    if (!command.MoveCall) throw new Error(`cannot render a ${command.$kind} command`);
    const call = command.MoveCall;
    // The SDK's generated MoveCallSuiTransaction type lost its `package` field; this is the node's shape.
    return {
      MoveCall: {
        package: call.package,
        module: call.module,
        function: call.function,
        type_arguments: call.typeArguments,
        arguments: call.arguments.map((arg) => (arg.$kind === 'Input' ? { Input: arg.Input } : arg)),
      },
    } as unknown as SuiTransaction;
  });

  return {
    messageVersion: 'v1',
    sender: data.sender ?? '',
    gasData: {
      owner: data.gasData.owner ?? data.sender ?? '',
      price: String(data.gasData.price),
      budget: String(data.gasData.budget),
      payment: (data.gasData.payment ?? []).map((ref) => ({ ...ref, version: String(ref.version) })),
    },
    transaction: { kind: 'ProgrammableTransaction', inputs, transactions },
  };
}
