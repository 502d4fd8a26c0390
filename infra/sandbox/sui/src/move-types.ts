import { bcs } from '@mysten/sui/bcs';
import type { SuiMoveNormalizedType } from '@mysten/sui/client';
import { getPureBcsSchema, normalizedTypeToMoveTypeSignature } from '@mysten/sui/transactions';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { FieldSpec } from './contract';

const PRIMITIVES: Record<string, SuiMoveNormalizedType> = {
  bool: 'Bool',
  u8: 'U8',
  u16: 'U16',
  u32: 'U32',
  u64: 'U64',
  u128: 'U128',
  u256: 'U256',
  address: 'Address',
};

/**
 * A contract-file type string as the node's normalized Move type. A struct name without an
 * address belongs to the module being described (`home`).
 */
export function normalizedType(
  type: string,
  home: { packageId: string; module: string },
): SuiMoveNormalizedType {
  if (type.startsWith('&mut ')) return { MutableReference: normalizedType(type.slice(5), home) };
  if (type.startsWith('&')) return { Reference: normalizedType(type.slice(1), home) };
  const vector = /^vector<(.+)>$/.exec(type);
  if (vector?.[1]) return { Vector: normalizedType(vector[1], home) };
  const primitive = PRIMITIVES[type];
  if (primitive) return primitive;
  const parts = type.split('::');
  const [address, module, name] = parts.length === 3 ? parts : [home.packageId, home.module, type];
  if (!address || !module || !name) throw new Error(`unsupported Move type ${type}`);
  return { Struct: { address: normalizeSuiAddress(address), module, name, typeArguments: [] } };
}

/** The BCS layout of a pure (non-object) value of this type, or null for objects and references. */
export function pureSchema(
  type: string,
  home: { packageId: string; module: string },
): ReturnType<typeof getPureBcsSchema> {
  const signature = normalizedTypeToMoveTypeSignature(normalizedType(type, home));
  if (signature.ref) return null;
  try {
    return getPureBcsSchema(signature.body);
  } catch {
    return null;
  }
}

/** BCS of a struct whose fields are all pure values, as the node stores an event. */
export function encodeStruct(
  fields: FieldSpec[],
  values: Record<string, unknown>,
  home: { packageId: string; module: string },
): Uint8Array {
  const layout = Object.fromEntries(
    fields.map((field) => {
      const schema = pureSchema(field.type, home);
      if (!schema) throw new Error(`field ${field.name}: ${field.type} is not a pure type`);
      return [field.name, schema];
    }),
  );
  return bcs.struct('Event', layout).serialize(values).toBytes();
}
