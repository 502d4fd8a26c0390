import { z } from 'zod';
import { isSuiAddress, normalizeAddress } from './addresses';
import type { MoveField } from './contract-interface';

/*
 * Parsers for values as the node renders them in an event's or object's `parsedJson`: addresses
 * and IDs as 0x-hex, u64 as a decimal string, std::string::String as text, a UID as {id}. Shared
 * instances, so a schema's field can be compared with the parser its Move type calls for.
 */
export const moveAddress = z
  .string()
  .refine(isSuiAddress, 'expected a Sui address')
  .transform((value) => normalizeAddress(value));
export const moveU64 = z
  .string()
  .regex(/^\d+$/, 'expected a u64 rendered as a decimal string')
  .transform((value) => BigInt(value));
export const moveString = z.string();
export const moveUid = z.object({ id: moveAddress });
export const moveIdVector = z.array(moveAddress);

const PARSER_BY_MOVE_TYPE: Record<string, z.ZodType> = {
  address: moveAddress,
  '0x2::object::ID': moveAddress,
  u64: moveU64,
  '0x1::string::String': moveString,
  '0x2::object::UID': moveUid,
  'vector<0x2::object::ID>': moveIdVector,
};

/**
 * Fails when a hand-written schema no longer matches the field list in the contract file:
 * the same field names, each parsed as its Move type requires.
 */
export function assertSchemaMatchesFields(
  what: string,
  shape: Record<string, z.ZodType>,
  fields: readonly MoveField[],
): void {
  const expected = fields.map((f) => f.name).sort();
  const actual = Object.keys(shape).sort();
  if (expected.join() !== actual.join()) {
    throw new Error(
      `${what}: contract fields [${expected.join(', ')}] but client reads [${actual.join(', ')}]`,
    );
  }
  for (const { name, type } of fields) {
    if (shape[name] !== PARSER_BY_MOVE_TYPE[type])
      throw new Error(`${what}.${name}: no parser for Move type ${type}`);
  }
}
