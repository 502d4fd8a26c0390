import { z } from 'zod';

/**
 * What went wrong, in the terms a caller decides on: `timeout` and `unavailable` are upstream
 * trouble (502 to our clients), `insufficient_funds` is the payer's problem (422), `rejected`
 * means the provider refused this request as sent, and there is nothing to retry.
 */
export type ProviderErrorKind =
  'timeout' | 'unavailable' | 'insufficient_funds' | 'rejected' | 'not_found' | 'unauthorized';

export interface ProviderErrorDetails {
  kind: ProviderErrorKind;
  /** The client operation, e.g. `orders.create`, so logs say which call failed. */
  operation: string;
  /** HTTP status of the provider's answer; absent when no answer arrived. */
  status?: number;
  providerMessage?: string;
  /** The provider's machine-readable code or reason, when it sent one. */
  providerCode?: string;
  cause?: unknown;
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  readonly providerCode: string | undefined;

  constructor(details: ProviderErrorDetails) {
    const status = details.status === undefined ? '' : `, HTTP ${details.status}`;
    const message = details.providerMessage ? `: ${details.providerMessage}` : '';
    super(`provider ${details.operation} failed (${details.kind}${status})${message}`, {
      cause: details.cause,
    });
    this.name = 'ProviderError';
    this.kind = details.kind;
    this.operation = details.operation;
    this.status = details.status;
    this.providerMessage = details.providerMessage;
    this.providerCode = details.providerCode;
  }

  /** Worth another attempt: the provider was overloaded or unreachable, not unhappy with the request. */
  get transient(): boolean {
    if (this.kind !== 'unavailable') return false;
    return this.status === undefined || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/**
 * Wallets answer `{error: true, message, code?}`, transaction simulation `{error: {reason, message}}`,
 * orders at least `{message}`; all three are read so the caller always sees the provider's words.
 */
const errorBody = z.object({
  message: z.string().optional(),
  code: z.string().optional(),
  error: z
    .union([
      z.boolean(),
      z.string(),
      z.object({ message: z.string().optional(), reason: z.string().optional() }),
    ])
    .optional(),
});

function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 429 || status >= 500) return 'unavailable';
  return 'rejected';
}

export function errorFromResponse(operation: string, status: number, body: unknown): ProviderError {
  const parsed = errorBody.safeParse(body);
  const fields = parsed.success ? parsed.data : {};
  const nested = typeof fields.error === 'object' ? fields.error : undefined;
  return new ProviderError({
    kind: kindForStatus(status),
    operation,
    status,
    providerMessage:
      fields.message ?? nested?.message ?? (typeof fields.error === 'string' ? fields.error : undefined),
    providerCode: fields.code ?? nested?.reason,
  });
}
