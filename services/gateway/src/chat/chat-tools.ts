import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { tool, type ToolSet } from 'ai';
import {
  addToCartOutput,
  checkoutOutput,
  getProductDetailsOutput,
  productQueryOf,
  rememberMemoryOutput,
  removeFromCartOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  viewCartOutput,
  type CartItemView,
} from '@shop/assistant';
import { chooseVariant, variantChoiceNeeded } from '@shop/domain';
import { currentCorrelationId, type Logger } from '@shop/logging';
import type { ProductSearch } from '@shop/product-search';
import { preferencesNamespace } from '@shop/read-models';
import type { CartItemResponse } from '../cart/cart-item.schema';
import { CartService } from '../cart/cart-service';
import { GetCartQuery } from '../cart/get-cart.query';
import { CheckoutCommand } from '../checkout/checkout.command';
import { LOGGER, MEMORY_STORE, PRODUCT_SEARCH } from '../infrastructure/tokens';
import { GetProfileQuery } from '../user/get-profile.query';
import type { AgentMemory } from '../memory/agent-memory';
import { LookupTools } from './lookup-tools';
import { failuresAsResults } from './tool-failure';

const cartItemView = ({ userId: _owner, ...item }: CartItemResponse): CartItemView => item;

/**
 * The agent's tools for one shopper. Each runs the same cart, command or query handler as the REST
 * route it mirrors, so every cart and checkout rule holds for the agent too and its changes show up in
 * GET /api/cart. A tool never throws: a failure is its result (see failuresAsResults).
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
    const guarded = failuresAsResults(this.logger, userId);

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
        execute: guarded('viewCart', async () =>
          viewCartOutput((await this.queries.execute(new GetCartQuery(userId))).items.map(cartItemView)),
        ),
      }),
      addToCart: tool({
        ...SHOPPING_TOOLS.addToCart,
        execute: guarded('addToCart', async (input, toolCallId) =>
          addToCartOutput(
            cartItemView(
              await this.cart.add(
                userId,
                { ...input, ...(await this.variantToAdd(userId, input)) },
                { correlationId: currentCorrelationId(), commandId: commandIdOf('addToCart', toolCallId) },
              ),
            ),
          ),
        ),
      }),
      removeFromCart: tool({
        ...SHOPPING_TOOLS.removeFromCart,
        execute: guarded('removeFromCart', async ({ itemId }) => {
          await this.cart.remove(userId, itemId, { correlationId: currentCorrelationId() });
          return removeFromCartOutput(itemId);
        }),
      }),
      checkout: tool({
        ...SHOPPING_TOOLS.checkout,
        execute: guarded('checkout', async ({ cartItemId }, toolCallId) => {
          // The serialized transaction is for the shopper's wallet, not for the model's prompt.
          const { orderId, providerOrderId, phase, walletAddress } = await this.commands.execute(
            new CheckoutCommand(userId, cartItemId, commandIdOf('checkout', toolCallId)),
          );
          return checkoutOutput({ orderId, providerOrderId, phase, walletAddress });
        }),
      }),
      rememberMemory: tool({
        ...SHOPPING_TOOLS.rememberMemory,
        execute: guarded(
          'rememberMemory',
          async ({ fact }, _toolCallId, signal) => {
            await this.memory.remember(userId, fact, {
              namespace: preferencesNamespace,
              source: 'chat',
              ...(signal && { signal }),
            });
            return rememberMemoryOutput(fact);
          },
          ({ fact }) => ({ text: fact }),
        ),
      }),
      ...this.lookups.forShopper(userId),
    };
  }

  /**
   * The size and colour the catalogue and the shopper's saved sizes settle (see chooseVariant); a
   * product the catalogue does not know is added as named.
   */
  private async variantToAdd(
    userId: string,
    input: { productId: string; size?: string; color?: string },
  ): Promise<{ size?: string; color?: string }> {
    const product = await this.products.product(input.productId);
    if (!product) return {};
    const { sizes } = await this.queries.execute(new GetProfileQuery(userId));
    const choice = chooseVariant(
      {
        productName: product.productName,
        category: product.category,
        sizes: product.sizes ?? [],
        colors: product.colors ?? [],
      },
      { size: input.size, color: input.color },
      sizes,
    );
    if (choice.kind === 'ask') throw variantChoiceNeeded(choice);
    return { size: choice.size, color: choice.color };
  }
}
