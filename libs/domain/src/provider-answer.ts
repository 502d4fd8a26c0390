/**
 * What came back from a call to the payment provider that gave no usable result: no answer (a
 * deadline, a lost connection), an error status, or a 2xx whose body could not be read.
 */
export type ProviderAnswer =
  { answer: 'none' } | { answer: 'status'; status: number } | { answer: 'unreadable'; status: number };

/** 4xx statuses that do not say no: a timeout, a collision with a request under the same key, too early, too many. */
const notARefusal = new Set([408, 409, 425, 429]);

/**
 * True when the provider said no to the request: it did not act and will not if asked the same
 * way. No answer, a 5xx or an unreadable 2xx prove nothing of the kind: the call may have acted.
 */
export function refusedByProvider(answer: ProviderAnswer): boolean {
  return (
    answer.answer === 'status' &&
    answer.status >= 400 &&
    answer.status < 500 &&
    !notARefusal.has(answer.status)
  );
}
