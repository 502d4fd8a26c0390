import { createHash } from 'node:crypto';
import type { SingleFlightCache } from '@shop/redis';
import type { ListingScrapeOptions, SearchRunner } from '@shop/scraper';

/**
 * A SearchRunner whose listings come from Redis for `ttlMs` after a scrape, and whose concurrent
 * requests for one listing (in this process, or in any instance) share a single actor run. The key
 * is the listing URL, so every page and page size of one search is served by the same run.
 */
export class CachingSearchRunner implements SearchRunner {
  constructor(
    private readonly runner: SearchRunner,
    private readonly cache: SingleFlightCache<unknown[]>,
    private readonly ttlMs: number,
    /** Told about every fresh scrape, not about cache hits. */
    private readonly onScraped: (items: unknown[]) => Promise<void>,
  ) {}

  scrapeListing(listingUrl: string, options: ListingScrapeOptions): Promise<unknown[]> {
    const key = createHash('sha256').update(`${options.maxResults}|${listingUrl}`).digest('hex');
    return this.cache.get(key, this.ttlMs, async () => {
      const items = await this.runner.scrapeListing(listingUrl, options);
      await this.onScraped(items);
      return items;
    });
  }
}
