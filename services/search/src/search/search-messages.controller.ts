import { Controller, Inject, Type } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import type { Logger } from '@shop/logging';
import {
  FindProductReply,
  findProductRequestSchema,
  ReplyError,
  SearchProductsReply,
  searchProductsRequestSchema,
} from '@shop/product-search';
import { toErrorResponse } from '../http/error-response';
import { LOGGER } from '@shop/service-kit';
import { tracedReply } from '@shop/tracing';
import { productSummaryOf, searchQueryOf } from './scraper-translation';
import { RealtimeSearch } from './realtime-search';

/**
 * The NATS side of search, for the gateway's NatsProductSearch. Replies are `{ok, result}` or
 * `{ok: false, error}` with the HTTP API's status codes: nothing is thrown across the wire.
 * The subjects carry the deployment's prefix, known only at start-up, hence a class per set.
 */
export function searchMessagesController(subjects: { search: string; product: string }): Type<unknown> {
  @Controller()
  class SearchMessagesController {
    constructor(
      private readonly search: RealtimeSearch,
      @Inject(LOGGER) private readonly logger: Logger,
    ) {}

    @MessagePattern(subjects.search)
    searchProducts(@Payload() payload: unknown, @Ctx() context: NatsContext): Promise<SearchProductsReply> {
      return this.reply(context, async () => {
        const result = await this.search.search(searchQueryOf(searchProductsRequestSchema.parse(payload)));
        const { products, total, page, limit, totalPage } = result;
        return { products: products.map(productSummaryOf), total, page, limit, totalPage };
      });
    }

    @MessagePattern(subjects.product)
    findProduct(@Payload() payload: unknown, @Ctx() context: NatsContext): Promise<FindProductReply> {
      return this.reply(context, async () => {
        const product = await this.search.product(findProductRequestSchema.parse(payload).productId);
        return product ? productSummaryOf(product) : null;
      });
    }

    /** Answered in the requester's trace, from the context its request's headers carry. */
    private async reply<T>(
      context: NatsContext,
      work: () => Promise<T>,
    ): Promise<{ ok: true; result: T } | { ok: false; error: ReplyError }> {
      try {
        return { ok: true, result: await tracedReply(context.getSubject(), context.getHeaders(), work) };
      } catch (error) {
        const response = toErrorResponse(error);
        if (response.unexpected) this.logger.error({ err: error }, 'unhandled error in a search request');
        return { ok: false, error: { code: response.body.status, message: response.body.message } };
      }
    }
  }
  return SearchMessagesController;
}
