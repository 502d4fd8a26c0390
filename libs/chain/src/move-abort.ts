import { normalizeAddress } from './addresses';

/** Where and with which code a Move function aborted, as the node reports it. */
export interface MoveAbort {
  /** Package that defines the aborting module, normalized. */
  packageId: string;
  module: string;
  functionName: string | null;
  code: bigint;
  /** Index of the programmable-transaction command that aborted. */
  command: number | null;
}

/*
 * The node renders an abort in `effects.status.error` with Rust's Debug formatting, e.g.
 *   MoveAbort(MoveLocation { module: ModuleId { address: 1f2e…, name: Identifier("cart") },
 *   function: 1, instruction: 42, function_name: Some("add_item") }, 1) in command 0
 * (the address has no 0x prefix; older nodes omit function_name).
 */
const MOVE_ABORT =
  /MoveAbort\(MoveLocation \{ module: ModuleId \{ address: (?:0x)?([0-9a-fA-F]+), name: Identifier\("(\w+)"\) \}, function: \d+, instruction: \d+(?:, function_name: (?:Some\("(\w+)"\)|None))? \}, (\d+)\)(?: in command (\d+))?/;

export function parseMoveAbort(error: string): MoveAbort | null {
  const match = MOVE_ABORT.exec(error);
  if (!match) return null;
  const [, address, module, functionName, code, command] = match;
  if (!address || !module || !code) return null;
  return {
    packageId: normalizeAddress(address),
    module,
    functionName: functionName ?? null,
    code: BigInt(code),
    command: command === undefined ? null : Number(command),
  };
}
