import { toolFailureResult, type ToolFailureResult } from '@shop/assistant';
import { DomainError } from '@shop/domain';
import { MemwalError } from '@shop/memory';
import { ProductSearchError } from '@shop/product-search';
import { toolFailureMessage } from './tool-failure';

/** A stable code for a failure that carries none of its own. */
function codeOf(error: unknown): string {
  if (error instanceof DomainError) return error.code;
  if (error instanceof ProductSearchError)
    return error.kind === 'invalid' ? 'PRODUCT_SEARCH_INVALID' : 'PRODUCT_SEARCH_UNAVAILABLE';
  if (error instanceof MemwalError) return 'MEMORY_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}

/**
 * A tool's failure as its result, `{ success: false, code, message }`: a refusal of the shop's rules
 * reads as itself, anything unexpected as a generic message (the details go to the log only).
 * `expected` is false for the unexpected, which the caller logs.
 */
export function toolFailureResultOf(error: unknown): { result: ToolFailureResult; expected: boolean } {
  const message = toolFailureMessage(error);
  return {
    result: toolFailureResult(codeOf(error), message ?? 'the shop could not complete this action right now'),
    expected: message !== undefined,
  };
}
