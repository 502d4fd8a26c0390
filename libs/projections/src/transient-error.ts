const transientNodeCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Errors that say nothing about the events (the database is down or busy) are retried
 * forever; anything else is a property of the events and leads to parking after retries.
 */
export function isTransientError(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  if (transientNodeCodes.has(code)) return true;
  if (/^(08|53|57P)/.test(code) || code === '40001' || code === '40P01') return true;
  const message = e?.message ?? '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Cannot use a pool after calling end/i.test(
    message,
  );
}
