export interface RecordedCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

type Answer = Response | Error | 'hang';

/**
 * A `fetch` that plays scripted answers in order (the last one repeats) and records what the
 * client sent. `hang` waits for the client's abort signal, as an unresponsive provider would.
 */
export function scriptedFetch(...answers: Array<Answer | (() => Answer)>): {
  fetch: typeof fetch;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const fake = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    calls.push({
      url: String(input),
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const scripted = answers[Math.min(calls.length, answers.length) - 1];
    const answer = typeof scripted === 'function' ? scripted() : scripted;
    if (answer === 'hang') {
      return new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }),
      );
    }
    if (answer instanceof Error) throw answer;
    if (!answer) throw new Error('no scripted answer');
    return answer;
  };
  return { fetch: fake as typeof fetch, calls };
}

export function json(status: number, body: unknown): () => Response {
  return () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function order(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId: 'b2959ca5-65e4-466a-bd26-1bd05cb4f837',
    phase: 'payment',
    quote: { status: 'valid', totalPrice: { amount: '14.06', currency: 'usdc' } },
    payment: {
      status: 'awaiting-payment',
      method: 'base-sepolia',
      currency: 'usdc',
      preparation: { chain: 'base-sepolia', serializedTransaction: '0x02f8' },
    },
    lineItems: [],
    ...overrides,
  };
}
