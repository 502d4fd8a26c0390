import { z } from 'zod';

export const walletSchema = z.object({
  chainType: z.string(),
  type: z.string(),
  address: z.string().min(1),
  owner: z.string().optional(),
  /** ISO string in recent answers, epoch milliseconds in older ones. */
  createdAt: z.union([z.string(), z.number()]).optional(),
  config: z
    .object({
      adminSigner: z
        .object({
          type: z.string(),
          locator: z.string().optional(),
          address: z.string().optional(),
          email: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type Wallet = z.output<typeof walletSchema>;

const chainBalanceSchema = z.object({
  locator: z.string().optional(),
  amount: z.string(),
  rawAmount: z.string().optional(),
  contractAddress: z.string().optional(),
});

export const tokenBalanceSchema = z.object({
  symbol: z.string(),
  name: z.string().optional(),
  decimals: z.number().int(),
  /** Decimal string in token units, summed over the requested chains. */
  amount: z.string(),
  rawAmount: z.string().optional(),
  chains: z.record(z.string(), chainBalanceSchema).optional(),
});
export type TokenBalance = z.output<typeof tokenBalanceSchema>;
export const tokenBalancesSchema = z.array(tokenBalanceSchema);

/** The staging faucet still answers in the legacy v1-alpha2 format: base units per chain plus `total`. */
export const fundedBalancesSchema = z.array(
  z.object({ token: z.string(), decimals: z.number().int(), balances: z.record(z.string(), z.string()) }),
);
export type FundedBalances = z.output<typeof fundedBalancesSchema>;

export type AdminSigner =
  { type: 'email'; email: string } | { type: 'api-key' } | { type: 'external-wallet'; address: string };

export interface CreateWalletInput {
  /**
   * `email:<address>`, `userId:<id>`... The provider keeps one wallet per owner, which is what
   * makes creation safe to repeat; an owner-less create would mint a new wallet each time.
   */
  owner: string;
  adminSigner: AdminSigner;
}

export interface FundWalletInput {
  /** Token units; the real staging faucet accepts 1 to 100 per call. */
  amount: number;
  token: 'usdc' | 'usdxm';
  chain: string;
}

export interface BalancesQuery {
  tokens: string[];
  chains: string[];
}
