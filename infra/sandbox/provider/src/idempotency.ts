export interface StoredAnswer {
  statusCode: number;
  body: unknown;
}

/**
 * Answers a repeated `x-idempotency-key` with the first result instead of acting twice, which is
 * what lets a client retry a POST whose answer it never saw.
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, Promise<StoredAnswer>>();

  remember(scope: string, key: string | undefined, act: () => Promise<StoredAnswer>): Promise<StoredAnswer> {
    if (key === undefined) return act();
    const id = `${scope}\n${key}`;
    const known = this.answers.get(id);
    if (known) return known;
    // Held as a promise so a concurrent repeat waits for the first attempt instead of acting too.
    const answer = act();
    this.answers.set(id, answer);
    // A refused request changed nothing, so the key stays free for a corrected attempt.
    answer.catch(() => this.answers.delete(id));
    return answer;
  }
}

export function idempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['x-idempotency-key'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
