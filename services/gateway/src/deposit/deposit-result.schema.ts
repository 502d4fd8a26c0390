import { z } from 'zod';
import { apiSchema } from '@shop/http';

export const depositResultSchema = apiSchema(
  'DepositResult',
  z.object({
    success: z.boolean(),
    txDigest: z.string(),
    usdcAmount: z.number().describe('USDC received'),
    usdmxAmount: z.string().describe('amount credited to the EVM wallet, exact decimal'),
  }),
);
