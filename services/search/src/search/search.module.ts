import { DynamicModule, Module } from '@nestjs/common';
import type { SearchConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { productSearchSubjects } from '@shop/product-search';
import { RateLimiter, SingleFlightCache, type Redis } from '@shop/redis';
import { ACTOR_RUN_TIMEOUT_SECS, ApifySearchRunner, normalizeProduct } from '@shop/scraper';
import {
  SEARCH_RATE_LIMITER,
  SEARCH_REQUESTS_PER_MINUTE,
  SearchRateLimitGuard,
} from '../http/rate-limit.guard';
import { LOGGER, REDIS } from '@shop/service-kit';
import { CachingSearchRunner } from './caching-search-runner';
import { ProductIndex } from './product-index';
import { RealtimeSearch } from './realtime-search';
import { SearchController } from './search.controller';
import { searchMessagesController } from './search-messages.controller';

/** Another instance's scrape is waited for as long as the runner itself waits for a run, plus margin. */
const SHARED_SCRAPE_WAIT_MS = (ACTOR_RUN_TIMEOUT_SECS + 90) * 1000;
/** HTTP retries of one platform call (network errors, 429, 5xx). */
const SCRAPER_HTTP_RETRIES = 3;

@Module({})
export class SearchModule {
  static register(config: SearchConfig): DynamicModule {
    return {
      module: SearchModule,
      controllers: [
        SearchController,
        searchMessagesController(productSearchSubjects(config.EVENT_SUBJECT_PREFIX)),
      ],
      providers: [
        {
          provide: RealtimeSearch,
          inject: [REDIS, LOGGER],
          useFactory: (redis: Redis, logger: Logger) => {
            const onUnavailable = (error: unknown) =>
              logger.warn({ err: error }, 'Redis unavailable: searching without the cache');
            const apify = new ApifySearchRunner({
              token: config.APIFY_API_TOKEN,
              baseUrl: config.APIFY_API_BASE_URL,
              actorId: config.APIFY_ACTOR_ID,
              // apify-client's default of 8 retries with doubling back-off holds a search for about
              // two minutes when the platform cannot be reached; 3 give up after a few seconds.
              maxRetries: SCRAPER_HTTP_RETRIES,
            });
            const index = new ProductIndex(redis, config.SEARCH_PRODUCT_TTL_SECONDS, onUnavailable);
            const cache = new SingleFlightCache<unknown[]>(redis, {
              namespace: 'search:listing',
              waitMs: SHARED_SCRAPE_WAIT_MS,
              onUnavailable,
            });
            const runner = new CachingSearchRunner(
              apify,
              cache,
              config.SEARCH_CACHE_TTL_SECONDS * 1000,
              (items) => index.remember(items.flatMap((item) => normalizeProduct(item) ?? [])),
            );
            return new RealtimeSearch(runner, index, apify);
          },
        },
        {
          provide: SEARCH_RATE_LIMITER,
          inject: [REDIS, LOGGER],
          useFactory: (redis: Redis, logger: Logger) =>
            new RateLimiter(redis, 'search', SEARCH_REQUESTS_PER_MINUTE, 60_000, (error) =>
              logger.warn({ err: error }, 'Redis unavailable: search rate limit not enforced'),
            ),
        },
        SearchRateLimitGuard,
      ],
    };
  }
}
