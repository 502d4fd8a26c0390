/** Codes the node uses; the SDK names them (JsonRpcError.type) from these numbers. */
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_REQUEST = -32600;
export const TRANSACTION_REJECTED = -32002;

/** A request the node refuses outright, answered as a JSON-RPC error object. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
