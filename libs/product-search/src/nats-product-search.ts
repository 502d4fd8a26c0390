import type { NatsConnection, NatsError } from 'nats';
import { z } from 'zod';
import { tracedRequest } from '@shop/tracing';
import { decodeNestReply, encodeNestRequest } from './nest-nats-packet';
import { parseProductId, parseProductQuery } from './parse-request';
import { ProductQuery } from './product-query';
import { ProductSearch } from './product-search';
import { ProductSearchError, ProductSearchErrorKind } from './product-search-error';
import { ProductSearchResult, ProductSummary } from './product-summary';
import {
  findProductReplySchema,
  productSearchSubjects,
  ReplyError,
  searchProductsReplySchema,
} from './search-messages';

export interface NatsProductSearchOptions {
  nc: NatsConnection;
  /** EVENT_SUBJECT_PREFIX of the deployment: the search service listens under it. */
  subjectPrefix: string;
  /** A realtime search runs a scraping job: allow it most of a chat turn. */
  timeoutMs?: number;
}

export const DEFAULT_SEARCH_TIMEOUT_MS = 90_000;

/** The search service's codes that mean the question itself was refused, or that it took too long. */
function kindOf(error: ReplyError): ProductSearchErrorKind {
  if (error.code === 'BAD_REQUEST') return 'invalid';
  return /TIMEOUT$/.test(error.code) ? 'timeout' : 'upstream';
}

/** Realtime products from the search service (`PRODUCT_SERVICE=scraping`), by NATS request-reply. */
export class NatsProductSearch implements ProductSearch {
  private readonly subjects: { search: string; product: string };
  private readonly timeoutMs: number;

  constructor(private readonly options: NatsProductSearchOptions) {
    this.subjects = productSearchSubjects(options.subjectPrefix);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  }

  async search(query: ProductQuery): Promise<ProductSearchResult> {
    return this.request(this.subjects.search, parseProductQuery(query), searchProductsReplySchema);
  }

  async product(productId: string): Promise<ProductSummary | null> {
    return this.request(
      this.subjects.product,
      { productId: parseProductId(productId) },
      findProductReplySchema,
    );
  }

  private async request<T>(
    subject: string,
    data: unknown,
    replySchema: z.ZodType<{ ok: true; result: T } | { ok: false; error: ReplyError }>,
  ): Promise<T> {
    let message;
    try {
      message = await tracedRequest(subject, (headers) =>
        this.options.nc.request(subject, encodeNestRequest(subject, data), {
          timeout: this.timeoutMs,
          headers,
        }),
      );
    } catch (error) {
      const code = (error as NatsError).code;
      if (code === 'TIMEOUT') {
        throw new ProductSearchError(
          'timeout',
          `The search service did not answer within ${this.timeoutMs} ms`,
        );
      }
      if (code === '503') throw new ProductSearchError('upstream', 'No search service is listening');
      throw new ProductSearchError('upstream', `Could not ask the search service: ${String(error)}`);
    }
    const packet = decodeNestReply(message.data);
    if (!packet.ok) throw new ProductSearchError('upstream', `The search service failed: ${packet.error}`);
    const reply = replySchema.safeParse(packet.response);
    if (!reply.success) throw new ProductSearchError('upstream', 'The search service sent a malformed reply');
    if (!reply.data.ok)
      throw new ProductSearchError(kindOf(reply.data.error), reply.data.error.message, reply.data.error.code);
    return reply.data.result;
  }
}
