import type { CoinMetadata } from '@mysten/sui/client';
import { normalizeStructTag, SUI_TYPE_ARG } from '@mysten/sui/utils';
import { randomObjectId } from './identifiers';

/** Circle's native USDC on Sui testnet: the coin the existing frontend deposits. */
export const TESTNET_USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';

/** Circle's native USDC on mainnet and testnet (6 decimals). */
const CIRCLE_USDC_TYPES = [
  '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC',
  TESTNET_USDC,
];

export interface CoinDescription {
  decimals: number;
  symbol: string;
  name?: string;
}

/**
 * What `suix_getCoinMetadata` answers: SUI, Circle's USDC types and `<payment package>::usdc::USDC`
 * are known from the start, others once registered; an unknown coin gets null, as on a node.
 */
export class CoinMetadataRegistry {
  private readonly coins = new Map<string, CoinMetadata>();

  constructor(paymentPackageId: string, paidCoinType: string) {
    this.register(SUI_TYPE_ARG, { decimals: 9, symbol: 'SUI', name: 'Sui' });
    for (const type of [...CIRCLE_USDC_TYPES, `${paymentPackageId}::usdc::USDC`]) {
      this.register(type, { decimals: 6, symbol: 'USDC', name: 'USDC' });
    }
    if (!this.get(paidCoinType)) this.register(paidCoinType, { decimals: 6, symbol: 'USDC', name: 'USDC' });
  }

  register(coinType: string, coin: CoinDescription): void {
    this.coins.set(normalizeStructTag(coinType), {
      id: randomObjectId(),
      decimals: coin.decimals,
      symbol: coin.symbol,
      name: coin.name ?? coin.symbol,
      description: '',
      iconUrl: null,
    });
  }

  get(coinType: string): CoinMetadata | null {
    try {
      return this.coins.get(normalizeStructTag(coinType)) ?? null;
    } catch {
      return null;
    }
  }
}
