import { performance } from 'node:perf_hooks';
import {
  buildMarketplaceSearchUrl,
  DEFAULT_MAX_RESULTS,
  normalizeProduct,
  searchProducts,
  type NormalizedProduct,
  type SearchQuery,
  type SearchRunner,
} from '@shop/scraper';
import { ProductIndex } from './product-index';
import { RealtimeSearchData, ScraperHealth } from './search-schemas';

interface ScraperProbe {
  checkToken(): Promise<void>;
}

/** The search use cases, shared by the HTTP routes and the NATS transport. */
export class RealtimeSearch {
  constructor(
    private readonly runner: SearchRunner,
    private readonly index: ProductIndex,
    private readonly probe: ScraperProbe,
  ) {}

  async search(query: SearchQuery): Promise<RealtimeSearchData> {
    const started = performance.now();
    const result = await searchProducts(query, { runner: this.runner });
    return {
      ...result,
      source: 'realtime',
      query: query.q,
      executionTime: Math.round(performance.now() - started),
    };
  }

  /**
   * A product any recent search scraped, else the marketplace's listing for the ASIN as keyword
   * (its search finds a product by ASIN) through the same cached, single-flight runner.
   */
  async product(asin: string): Promise<NormalizedProduct | null> {
    const known = await this.index.find(asin);
    if (known) return known;
    const items = await this.runner.scrapeListing(buildMarketplaceSearchUrl({ q: asin }), {
      maxResults: DEFAULT_MAX_RESULTS,
    });
    return items.map(normalizeProduct).find((product) => product?.asin === asin) ?? null;
  }

  /** Healthy when the platform accepts the token (a user lookup). */
  async health(): Promise<{ status: ScraperHealth; reason?: string }> {
    try {
      await this.probe.checkToken();
      return { status: 'healthy' };
    } catch (error) {
      return { status: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
    }
  }
}
