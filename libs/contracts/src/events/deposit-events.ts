import { z } from 'zod';
import { defineEvent } from '../event-definition';

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a non-negative decimal string');

export const DepositClaimed = defineEvent({
  type: 'DepositClaimed',
  version: 1,
  aggregate: 'deposit',
  description:
    'A verified on-chain payment (the aggregate id is its digest) is being credited to a user; the first claim is appended at sequence 0, so a digest is credited at most once.',
  schema: z.object({
    attempt: z.number().int().positive(),
    userId: z.uuid(),
    payerAddress: z.string(),
    evmAddress: z.string(),
    amountMist: z.string().regex(/^\d+$/),
    usdcAmount: decimal,
    coinType: z.string(),
    source: z.enum(['search-service', 'verify']),
    claimedAt: z.iso.datetime(),
  }),
});

export const DepositCredited = defineEvent({
  type: 'DepositCredited',
  version: 1,
  aggregate: 'deposit',
  description: "The user's EVM wallet was funded with the deposit's USDMX equivalent.",
  schema: z.object({
    attempt: z.number().int().positive(),
    usdmxAmount: decimal,
    evmAddress: z.string(),
    // The provider said yes (a 2xx) in a body that could not be read: what came back, for the
    // operator. Absent on a clean answer, and on credits recorded before it was.
    providerAnswer: z.string().max(1000).optional(),
  }),
});

export const DepositCreditFailed = defineEvent({
  type: 'DepositCreditFailed',
  version: 1,
  aggregate: 'deposit',
  description: 'Funding the EVM wallet failed; the digest stays retryable.',
  schema: z.object({ attempt: z.number().int().positive(), reason: z.string().max(1000) }),
});

export const depositEvents = [DepositClaimed, DepositCredited, DepositCreditFailed] as const;
