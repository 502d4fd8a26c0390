import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { tool, type ToolSet } from 'ai';
import {
  compareProductsOutput,
  getOrdersOutput,
  recallMemoriesOutput,
  SHOPPING_TOOLS,
  TOOL_FAILURE_CODES,
  toolFailed,
  type CompareProductsInput,
} from '@shop/assistant';
import type { Logger } from '@shop/logging';
import type { ProductSearch } from '@shop/product-search';
import { LOGGER, MEMORY_STORE, PRODUCT_SEARCH } from '../infrastructure/tokens';
import type { AgentMemory } from '../memory/agent-memory';
import { GetOrderQuery, ListOrdersQuery } from '../orders/order-queries';
import { failuresAsResults } from './tool-failure';

/** The newest orders a shopper asks about at once, unless the model asks for another number. */
const DEFAULT_ORDERS = 5;
/** Memories handed back per question; the model needs the few that answer it. */
const RECALL_LIMIT = 5;

/**
 * The tools that read what the shopper has (orders, products side by side, what they asked to be
 * remembered). Each runs the query the REST route runs (GET /api/orders, GET /api/orders/:id, the
 * product lookup of getProductDetails) or the recall the chat itself uses; like every chat tool, a
 * failure is its result (see failuresAsResults), never a thrown error.
 */
@Injectable()
export class LookupTools {
  constructor(
    private readonly queries: QueryBus,
    @Inject(PRODUCT_SEARCH) private readonly products: ProductSearch,
    @Inject(MEMORY_STORE) private readonly memory: AgentMemory,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  forShopper(userId: string): ToolSet {
    const guarded = failuresAsResults(this.logger, userId);

    return {
      getOrders: tool({
        ...SHOPPING_TOOLS.getOrders,
        execute: guarded('getOrders', async ({ orderId, type, status, limit }) => {
          if (orderId !== undefined) {
            const order = await this.queries.execute(new GetOrderQuery(userId, orderId));
            return getOrdersOutput({ orders: [order], total: 1, page: 1, limit: 1 });
          }
          const filters = { ...(type !== undefined && { type }), ...(status !== undefined && { status }) };
          const page = await this.queries.execute(
            new ListOrdersQuery(userId, 1, limit ?? DEFAULT_ORDERS, filters),
          );
          return getOrdersOutput(page);
        }),
      }),
      compareProducts: tool({
        ...SHOPPING_TOOLS.compareProducts,
        execute: guarded('compareProducts', async ({ productIds }: CompareProductsInput) => {
          const ids = [...new Set(productIds)];
          const found = await Promise.all(ids.map((id) => this.products.product(id)));
          const missing = ids.filter((_, index) => found[index] === null);
          if (missing.length > 0)
            return toolFailed(TOOL_FAILURE_CODES.productNotFound, `No product with id ${missing.join(', ')}`);
          if (ids.length < 2)
            return toolFailed(
              TOOL_FAILURE_CODES.invalidInput,
              'Name two to four different products to compare',
            );
          return compareProductsOutput(found.flatMap((product) => (product ? [product] : [])));
        }),
      }),
      recallMemories: tool({
        ...SHOPPING_TOOLS.recallMemories,
        execute: guarded('recallMemories', async ({ question }, _toolCallId, signal) =>
          recallMemoriesOutput(
            await this.memory.recall(userId, question, { limit: RECALL_LIMIT, ...(signal && { signal }) }),
          ),
        ),
      }),
    };
  }
}
