import { describe, expect, it } from 'vitest';
import { parseMoveAbort } from '@shop/chain';

const PKG = 'f033ec079b048af82289a10c5e54caa177f1fda8804504014999f548f512caa3';

describe('parseMoveAbort', () => {
  it('reads the node’s Debug-formatted abort', () => {
    const status = `MoveAbort(MoveLocation { module: ModuleId { address: ${PKG}, name: Identifier("cart") }, function: 1, instruction: 26, function_name: Some("add_item") }, 1) in command 0`;
    expect(parseMoveAbort(status)).toEqual({
      packageId: `0x${PKG}`,
      module: 'cart',
      functionName: 'add_item',
      code: 1n,
      command: 0,
    });
  });

  it('reads the older form without function_name and a u64 beyond 2^53', () => {
    const status = `MoveAbort(MoveLocation { module: ModuleId { address: 0000000000000000000000000000000000000000000000000000000000000002, name: Identifier("dynamic_field") }, function: 4, instruction: 12 }, 18446744073709551615) in command 2`;
    expect(parseMoveAbort(status)).toEqual({
      packageId: `0x${'0'.repeat(63)}2`,
      module: 'dynamic_field',
      functionName: null,
      code: 18_446_744_073_709_551_615n,
      command: 2,
    });
  });

  it('returns null for other failures', () => {
    expect(parseMoveAbort('InsufficientGas')).toBeNull();
    expect(parseMoveAbort('CommandArgumentError { arg_idx: 1, kind: TypeMismatch } in command 0')).toBeNull();
  });
});
