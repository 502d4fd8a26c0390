import { DomainError } from '@shop/domain';
import { MemwalError } from '@shop/memory';
import { ProductSearchError } from '@shop/product-search';

/** What a tool may tell the model (and so the shopper) about a failure. */
export function toolFailureMessage(error: unknown): string | undefined {
  if (error instanceof DomainError) return error.message;
  if (error instanceof ProductSearchError) {
    if (error.kind === 'invalid') return error.message;
    return error.kind === 'timeout'
      ? 'the product search did not answer in time'
      : 'the product search is unavailable right now';
  }
  if (error instanceof MemwalError) return 'the memory service is unavailable right now';
  return undefined;
}

/** A failed tool's error, whose message is safe to show: the model and the shopper both read it. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

/**
 * The error a failed tool throws: the SDK hands its message to the model as the tool's result,
 * so a refusal of the shop's rules reads as itself and anything unexpected stays internal.
 */
export function toolFailure(error: unknown): ToolFailure {
  return new ToolFailure(toolFailureMessage(error) ?? 'the shop could not complete this action right now', {
    cause: error,
  });
}
