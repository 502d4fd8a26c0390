import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { tool, type ToolSet } from 'ai';
import {
  getProductDetailsOutput,
  productQueryOf,
  rememberMemoryOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  type CartItemView,
} from '@shop/assistant';
import { currentCorrelationId, type Logger } from '@shop/logging';
import type { ProductSearch } from '@shop/product-search';
import { preferencesNamespace } from '@shop/read-models';
import type { CartItemResponse } from '../cart/cart-item.schema';
import { CartService } from '../cart/cart-service';
import { GetCartQuery } from '../cart/get-cart.query';
import { CheckoutCommand } from '../checkout/checkout.command';
import { LOGGER, MEMORY_STORE, PRODUCT_SEARCH } from '../infrastructure/tokens';
import type { AgentMemory } from '../memory/agent-memory';
import { LookupTools } from './lookup-tools';
import { toolFailure, toolFailureMessage } from './tool-failure';

const cartItemView = ({ userId: _owner, ...item }: CartItemResponse): CartItemView => item;

/**
 * The agent's tools for one shopper. Each runs the same cart, command or query handler as the REST
 * route it mirrors, so every cart and checkout rule holds for the agent too and its changes show up in
 * GET /api/cart. A failure is thrown (see toolFailure): the model gets it as the tool's result.
 */
@Injectable()
export class ChatTools {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly cart: CartService,
    @Inject(PRODUCT_SEARCH) private readonly products: ProductSearch,
    @Inject(MEMORY_STORE) private readonly memory: AgentMemory,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly lookups: LookupTools,
  ) {}

  forShopper(userId: string, sessionId: string): ToolSet {
    /**
     * A model's tool call id is fixed once the call is made (the offline model's even derives from
     * the conversation), so a replayed call is stored once, like a retried request.
     */
    const commandIdOf = (tool: string, toolCallId: string) =>
      createHash('sha256')
        .update(`${userId}\u0000${sessionId}\u0000${tool}\u0000${toolCallId}`)
        .digest('hex')
        .slice(0, 40);
    const guarded =
      <I, O>(name: string, run: (input: I, toolCallId: string, signal?: AbortSignal) => Promise<O>) =>
      async (input: I, { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal }) => {
        try {
          return await run(input, toolCallId, abortSignal);
        } catch (error) {
          if (toolFailureMessage(error) === undefined)
            this.logger.error({ err: error, tool: name, userId }, 'chat tool failed');
          throw toolFailure(error);
        }
      };

    return {
      searchProducts: tool({
        ...SHOPPING_TOOLS.searchProducts,
        execute: guarded('searchProducts', async (input) =>
          searchProductsOutput(await this.products.search(productQueryOf(input))),
        ),
      }),
      getProductDetails: tool({
        ...SHOPPING_TOOLS.getProductDetails,
        execute: guarded('getProductDetails', async ({ productId }) =>
          getProductDetailsOutput(productId, await this.products.product(productId)),
        ),
      }),
      viewCart: tool({
        ...SHOPPING_TOOLS.viewCart,
        execute: guarded('viewCart', async () => ({
          items: (await this.queries.execute(new GetCartQuery(userId))).map(cartItemView),
        })),
      }),
      addToCart: tool({
        ...SHOPPING_TOOLS.addToCart,
        execute: guarded('addToCart', async (input, toolCallId) => ({
          item: cartItemView(
            await this.cart.add(userId, input, {
              correlationId: currentCorrelationId(),
              commandId: commandIdOf('addToCart', toolCallId),
            }),
          ),
        })),
      }),
      removeFromCart: tool({
        ...SHOPPING_TOOLS.removeFromCart,
        execute: guarded('removeFromCart', async ({ itemId }) => {
          await this.cart.remove(userId, itemId, { correlationId: currentCorrelationId() });
          return { itemId, removed: true };
        }),
      }),
      checkout: tool({
        ...SHOPPING_TOOLS.checkout,
        execute: guarded('checkout', async ({ cartItemId }, toolCallId) => {
          // The serialized transaction is for the shopper's wallet, not for the model's prompt.
          const { orderId, providerOrderId, phase, walletAddress } = await this.commands.execute(
            new CheckoutCommand(userId, cartItemId, commandIdOf('checkout', toolCallId)),
          );
          return { orderId, providerOrderId, phase, walletAddress };
        }),
      }),
      rememberMemory: tool({
        ...SHOPPING_TOOLS.rememberMemory,
        execute: guarded('rememberMemory', async ({ fact }, _toolCallId, signal) => {
          await this.memory.remember(userId, fact, {
            namespace: preferencesNamespace,
            source: 'chat',
            ...(signal && { signal }),
          });
          return rememberMemoryOutput(fact);
        }),
      }),
      ...this.lookups.forShopper(userId),
    };
  }
}
