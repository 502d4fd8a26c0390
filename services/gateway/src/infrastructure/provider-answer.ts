import type { ProviderAnswer } from '@shop/domain';
import { ProviderError } from '@shop/provider';

/** A failed provider call in the terms the deciders judge it by. */
export function providerAnswerOf(error: unknown): ProviderAnswer {
  if (!(error instanceof ProviderError) || error.status === undefined) return { answer: 'none' };
  if (error.status < 300) return { answer: 'unreadable', status: error.status };
  return { answer: 'status', status: error.status };
}
