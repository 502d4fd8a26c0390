import { z } from 'zod';
import { apiSchema } from '@shop/http';

/**
 * Every response of the API: `data`, a machine-readable `status`, `code` (the HTTP status, repeated)
 * and a human `message`. Success is always status `OK` and code 200.
 */
export interface Envelope<T> {
  data: T;
  status: string;
  code: number;
  message?: string;
}

export function ok<T>(data: T, message: string): Envelope<T> {
  return { data, status: 'OK', code: 200, message };
}

/** The OpenAPI shape of a successful response carrying `data`. */
export function okEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ data, status: z.literal('OK'), code: z.literal(200), message: z.string().optional() });
}

/** Failures: `status` is an upper-case code (the HTTP status name, or a specific one listed per route). */
export const errorEnvelopeSchema = apiSchema(
  'Error',
  z.object({
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        'null, except for payment verifications that ran (the verification result, with success false) and the scraping platform health (status unavailable)',
      ),
    status: z.string().meta({ examples: ['BAD_REQUEST', 'TOO_MANY_REQUESTS', 'AMOUNT_TOO_SMALL'] }),
    code: z.number().int().describe('the HTTP status code'),
    message: z.string(),
  }),
);
