import { z } from 'zod';

/** An answer in the provider's error shape, `{error: true, message, code?}`. */
export class ProviderApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ProviderApiError';
  }

  toBody(): { error: true; message: string; code?: string } {
    return this.code
      ? { error: true, message: this.message, code: this.code }
      : { error: true, message: this.message };
  }
}

export function parseOrReject<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ProviderApiError(400, z.prettifyError(result.error), 'invalid-request');
  return result.data;
}
