import { ProviderAnswer, refusedByProvider } from '../provider-answer';

/**
 * What a funding call's answer means for the deposit. Any 2xx funded it, a body that could not be
 * read included (the provider said yes); only a refusal failed it; anything else may have funded
 * it or not, and is asked again under the same key until it says one or the other.
 */
export function fundingOutcome(answer: ProviderAnswer): 'funded' | 'refused' | 'unknown' {
  if (answer.answer === 'unreadable') return 'funded';
  return refusedByProvider(answer) ? 'refused' : 'unknown';
}
