import { Controller, Get, Inject } from '@nestjs/common';
import { z } from 'zod';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { ApiRoute, apiSchema } from '@shop/http';
import { ProviderClient } from '@shop/provider';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { CONFIG, PROVIDER } from '../infrastructure/tokens';

const devWallet = apiSchema(
  'DevWallet',
  z.object({
    suiAddress: z.string().nullable(),
    evmAddress: z.string().nullable(),
    usdc: z.string().nullable().describe('USDC at the provider wallet; null when it could not be read'),
    chain: z
      .object({ rpcUrl: z.string(), coinType: z.string(), paymentPackageId: z.string() })
      .nullable()
      .describe('where deposits are paid and verified; null when deposits are not configured'),
    providerUrl: z
      .string()
      .nullable()
      .describe("the payment provider's API, whose stand-in approves as the wallet"),
  }),
);
type DevWallet = z.infer<typeof devWallet>;

/**
 * What the test page needs to act as the shopper's wallets (outside production only): the
 * addresses, the provider balance, and the chain and provider the gateway itself uses.
 */
@Controller('api/dev')
export class DevWalletController {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('wallet')
  @ApiRoute({
    summary: "The shopper's wallets, USDC balance and the chain and provider in use (not in production)",
    tags: ['dev'],
    access: 'session',
    responses: { 200: { description: 'The wallets', schema: devWallet } },
    errors: [{ status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' }],
  })
  async wallet(@CurrentIdentity() identity: SessionIdentity): Promise<DevWallet> {
    const { state: user } = await this.aggregates.user.state(identity.userId);
    const {
      CHAIN_RPC_URL: rpcUrl,
      CHAIN_COIN_TYPE: coinType,
      CHAIN_PAYMENT_PACKAGE_ID: paymentPackageId,
    } = this.config;
    return {
      suiAddress: user.suiAddress ?? null,
      evmAddress: user.evmAddress ?? null,
      usdc: user.evmAddress ? await this.usdcOf(user.evmAddress) : null,
      chain: rpcUrl && coinType && paymentPackageId ? { rpcUrl, coinType, paymentPackageId } : null,
      providerUrl: this.config.PROVIDER_API_URL ?? null,
    };
  }

  private async usdcOf(evmAddress: string): Promise<string | null> {
    if (!this.provider) return null;
    try {
      const balances = await this.provider.getBalances(evmAddress, {
        tokens: ['usdc'],
        chains: [this.config.PROVIDER_CHAIN],
      });
      return balances.find((b) => b.symbol.toLowerCase() === 'usdc')?.amount ?? '0';
    } catch {
      return null;
    }
  }
}
