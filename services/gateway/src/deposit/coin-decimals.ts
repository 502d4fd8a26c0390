import { Inject, Injectable } from '@nestjs/common';
import type { SuiClient } from '@mysten/sui/client';
import { DomainError } from '@shop/domain';
import { SUI_CLIENT } from '../infrastructure/tokens';

/**
 * The decimals of a coin as the chain's coin metadata gives them, so an amount in base units
 * converts exactly whatever the accepted coin is. Kept once known: a coin's decimals never change.
 */
@Injectable()
export class CoinDecimals {
  private readonly known = new Map<string, number>();

  constructor(@Inject(SUI_CLIENT) private readonly sui: SuiClient | null) {}

  async of(coinType: string): Promise<number> {
    const known = this.known.get(coinType);
    if (known !== undefined) return known;
    if (!this.sui) {
      throw new DomainError(
        'unavailable',
        'SERVICE_UNAVAILABLE',
        "Deposits are not configured: CHAIN_RPC_URL is needed to read the coin's decimals",
      );
    }
    let metadata;
    try {
      metadata = await this.sui.getCoinMetadata({ coinType });
    } catch {
      throw new DomainError('upstream', 'UPSTREAM_ERROR', 'The chain could not be reached');
    }
    if (!metadata) {
      throw new DomainError(
        'unavailable',
        'SERVICE_UNAVAILABLE',
        `The chain has no metadata for the accepted coin ${coinType}`,
      );
    }
    this.known.set(coinType, metadata.decimals);
    return metadata.decimals;
  }
}
