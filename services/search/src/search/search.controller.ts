import { Controller, Get, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { DomainError } from '@shop/domain';
import { ApiRoute, ValidParams, ValidQuery } from '@shop/http';
import { searchQuerySchema } from '@shop/scraper';
import type { NormalizedProduct, SearchQuery } from '@shop/scraper';
import { Envelope, ok, okEnvelopeSchema } from '../http/envelope';
import { OutcomeError } from '../http/outcome-error';
import { SearchRateLimitGuard } from '../http/rate-limit.guard';
import { RealtimeSearch } from './realtime-search';
import {
  asinParamsSchema,
  productSchema,
  RealtimeSearchData,
  realtimeSearchSchema,
  ScraperHealth,
  scraperHealthSchema,
  unavailableEnvelopeSchema,
} from './search-schemas';

const rateLimited = {
  status: 429,
  code: 'TOO_MANY_REQUESTS',
  description: 'more than 10 requests a minute from this address (Retry-After and RateLimit-* headers)',
};
const scrapeErrors = [
  { status: 502, code: 'SCRAPE_FAILED', description: 'the actor run ended FAILED, ABORTED or TIMED-OUT' },
  { status: 502, code: 'SCRAPER_AUTH_FAILED', description: 'the scraping platform refused the token' },
  { status: 503, code: 'SCRAPER_NOT_CONFIGURED', description: 'APIFY_API_TOKEN is missing' },
  { status: 504, code: 'SCRAPE_TIMEOUT', description: 'the actor run did not finish in time' },
];

@Controller('api/search/realtime')
export class SearchController {
  constructor(private readonly search: RealtimeSearch) {}

  @Get()
  @UseGuards(SearchRateLimitGuard)
  @ApiRoute({
    summary:
      'Realtime marketplace search: one actor run per distinct listing (cached for SEARCH_CACHE_TTL_SECONDS, shared by concurrent identical queries), normalised and ranked',
    tags: ['search'],
    access: 'public',
    query: searchQuerySchema,
    responses: {
      200: {
        description: 'The requested page of ranked products',
        schema: okEnvelopeSchema(realtimeSearchSchema),
      },
    },
    errors: [
      {
        status: 400,
        code: 'BAD_REQUEST',
        description: 'a query parameter failed validation (named in message)',
      },
      rateLimited,
      ...scrapeErrors,
    ],
  })
  async realtime(@ValidQuery() query: SearchQuery): Promise<Envelope<RealtimeSearchData>> {
    const data = await this.search.search(query);
    return ok(data, `Realtime search completed: ${data.total} products`);
  }

  @Get('health')
  @ApiRoute({
    summary:
      "Whether the scraping platform accepts the token (a user lookup): data.status is the spec's healthy or unavailable",
    tags: ['search'],
    access: 'public',
    responses: {
      200: { description: 'Reachable and authorised', schema: okEnvelopeSchema(scraperHealthSchema) },
      503: {
        description:
          "Unreachable, or the token is missing or refused. The body is the spec's {status: unavailable} as the data of the envelope, like the healthy answer; the HTTP status is 503 rather than 200 so load balancers and probes that read only the status line see the outage. message says why.",
        schema: unavailableEnvelopeSchema,
      },
    },
  })
  async health(): Promise<Envelope<{ status: ScraperHealth }>> {
    const { status, reason } = await this.search.health();
    if (status === 'unavailable') {
      throw new OutcomeError(
        'unavailable',
        'SERVICE_UNAVAILABLE',
        reason ?? 'The scraping platform is unavailable',
        {
          status,
        },
      );
    }
    return ok({ status }, 'The scraping platform is reachable');
  }

  @Get('product/:asin')
  @UseGuards(SearchRateLimitGuard)
  @ApiRoute({
    summary:
      'One product by ASIN: from the products recent searches scraped, else from a listing scrape for the ASIN',
    tags: ['search'],
    access: 'public',
    params: asinParamsSchema,
    responses: { 200: { description: 'The product', schema: okEnvelopeSchema(productSchema) } },
    errors: [
      { status: 400, code: 'BAD_REQUEST', description: 'asin is not 10 letters or digits' },
      {
        status: 404,
        code: 'PRODUCT_NOT_FOUND',
        description: 'the marketplace has no product with this ASIN',
      },
      rateLimited,
      ...scrapeErrors,
    ],
  })
  async product(
    @ValidParams() { asin }: z.output<typeof asinParamsSchema>,
  ): Promise<Envelope<NormalizedProduct>> {
    const product = await this.search.product(asin);
    if (!product) throw new DomainError('not_found', 'PRODUCT_NOT_FOUND', `No product with ASIN ${asin}`);
    return ok(product, 'Product found');
  }
}
