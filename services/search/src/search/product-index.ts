import type { Redis } from 'ioredis';
import type { NormalizedProduct } from '@shop/scraper';

/**
 * Products recently scraped, by ASIN, so the product route can answer for anything a search
 * showed without another scrape. Only a cache: when Redis is down it knows nothing.
 */
export class ProductIndex {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly onUnavailable: (error: unknown) => void,
  ) {}

  async remember(products: readonly NormalizedProduct[]): Promise<void> {
    if (this.ttlSeconds <= 0 || products.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const product of products) {
      pipeline.set(this.key(product.asin), JSON.stringify(product), 'EX', this.ttlSeconds);
    }
    await pipeline.exec().catch(this.onUnavailable);
  }

  async find(asin: string): Promise<NormalizedProduct | null> {
    try {
      const stored = await this.redis.get(this.key(asin));
      return stored ? (JSON.parse(stored) as NormalizedProduct) : null;
    } catch (error) {
      this.onUnavailable(error);
      return null;
    }
  }

  private key(asin: string): string {
    return `product:${asin}`;
  }
}
