/** Empty polls in a row stretch the pause up to this many poll intervals; an event resets it. */
const idleBackoffLimit = 8;

/**
 * The pause after the `emptyPolls`-th empty poll in a row. Every poll costs the node and this
 * process a JSON-RPC round trip, most of what an idle stack burns, so a quiet chain is polled
 * less often: the pause doubles up to idleBackoffLimit intervals, and the first event after a
 * quiet spell is seen at most that late (events after it, at the poll interval again).
 */
export function idlePauseMs(pollIntervalMs: number, emptyPolls: number): number {
  return pollIntervalMs * Math.min(2 ** Math.max(emptyPolls - 1, 0), idleBackoffLimit);
}
