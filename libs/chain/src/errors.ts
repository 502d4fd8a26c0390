import type { AbortName } from './contract-interface';
import type { MoveAbort } from './move-abort';

export class ChainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The caller passed something the chain would never accept (a malformed digest, address…). */
export class ChainInputError extends ChainError {}

/**
 * The RPC could not be reached or did not answer in time, after the bounded retries. For a write,
 * `digest` is set when signed bytes were sent: the transaction may or may not have executed, and
 * looking the digest up later settles it.
 */
export class ChainTransportError extends ChainError {
  constructor(
    message: string,
    readonly attempts: number,
    readonly digest: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The node answered with a JSON-RPC error: it refused the request (bad signature, stale object…). */
export class ChainRpcError extends ChainError {
  constructor(
    message: string,
    readonly code: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The transaction ran and failed. `digest` is set when the failure happened on chain (the failed
 * transaction exists and paid gas) and unset when the pre-flight dry run already failed, in which
 * case nothing was submitted.
 */
export class ChainExecutionError extends ChainError {
  constructor(
    message: string,
    readonly status: string,
    readonly digest: string | undefined,
    readonly moveAbort: MoveAbort | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A cart-contract function aborted with one of the contract's documented codes. */
export class ChainAbortError extends ChainExecutionError {
  constructor(
    readonly abortName: AbortName,
    readonly abortCode: number,
    readonly functionName: string | null,
    status: string,
    digest: string | undefined,
    moveAbort: MoveAbort,
  ) {
    super(
      `cart::${functionName ?? '?'} aborted with ${abortName} (${abortCode})${digest ? ` in ${digest}` : ' in dry run'}`,
      status,
      digest,
      moveAbort,
    );
  }
}
