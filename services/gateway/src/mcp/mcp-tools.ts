import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  addToCartInputSchema,
  cartItemSchema,
  checkoutInputSchema,
  getProductDetailsInputSchema,
  productQueryOf,
  removeFromCartInputSchema,
  searchProductsInputSchema,
  searchProductsOutput,
  searchProductsResultSchema,
  TOOL_FAILURE_CODES,
  toolFailed,
  type ToolFailureResult,
  viewCartInputSchema,
  type CartItemView,
} from '@shop/assistant';
import { orderApprovalUrlOf, type GatewayConfig } from '@shop/config';
import { orderStatuses, type AgentScope } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { DomainError } from '@shop/domain';
import { currentCorrelationId, type Logger } from '@shop/logging';
import { productCardOf, productCardSchema, type ProductSearch } from '@shop/product-search';
import type { CartItemResponse } from '../cart/cart-item.schema';
import { CartService } from '../cart/cart-service';
import { GetCartQuery } from '../cart/get-cart.query';
import { CheckoutCommand } from '../checkout/checkout.command';
import { expectedToolFailure } from '../chat/tool-failure';
import { idempotentCommandId } from '../http/idempotency';
import { CONFIG, LOGGER, PRODUCT_SEARCH } from '../infrastructure/tokens';
import { GetOrderQuery, ListOrdersQuery } from '../orders/order-queries';
import { orderSchema } from '../orders/order.schema';
import { servesTestPage, testPageOrderUrl } from '../test-page-route/serves-test-page';
import type { AgentPrincipal } from './agent-credentials';

const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .describe('Any unique string per intended action; a retried call with the same key makes no second one');

const productOrMissing = z.object({
  product: productCardSchema.nullable().describe('null when no product has this id'),
});
const orderPage = z.object({
  orders: z.array(orderSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

interface McpTool {
  scope: AgentScope;
  /** The REST route's access class: the cart, checkout and orders need a finished onboarding. */
  gated: boolean;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  annotations: ToolAnnotations;
  run(input: never, principal: AgentPrincipal, gatewayOrigin: string): Promise<Record<string, unknown>>;
}

const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const cartItemView = ({ userId: _owner, ...item }: CartItemResponse): CartItemView => item;

const onboardingIncomplete = () =>
  new DomainError(
    'forbidden',
    'ONBOARDING_INCOMPLETE',
    'The shopper has to finish onboarding in the shop first',
  );

/**
 * The shop's tools for outside agents, one McpServer per request (the transport is stateless).
 * Each runs the command or query handler of the REST route it mirrors, for the shopper the
 * token speaks for, so every cart, checkout and order rule holds as it does for the frontend.
 */
@Injectable()
export class McpTools {
  /** Tool name to the scope a token needs to call it (checked before the call reaches a tool). */
  readonly scopeOf: ReadonlyMap<string, AgentScope>;
  private readonly tools: Record<string, McpTool>;

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly cart: CartService,
    private readonly aggregates: Aggregates,
    @Inject(PRODUCT_SEARCH) private readonly products: ProductSearch,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {
    this.tools = this.definitions();
    this.scopeOf = new Map(Object.entries(this.tools).map(([name, tool]) => [name, tool.scope]));
  }

  /** `gatewayOrigin`: where the agent reached this gateway, the base of links to its own pages. */
  serverFor(principal: AgentPrincipal, gatewayOrigin: string): McpServer {
    const server = new McpServer(
      { name: 'shop', version: '1.0.0' },
      {
        instructions:
          "Search the shop, manage the shopper's cart and create orders for them. Every order waits for the shopper's own payment approval.",
      },
    );
    for (const [name, tool] of Object.entries(this.tools)) {
      server.registerTool(
        name,
        {
          title: tool.title,
          description: `${tool.description} (scope: ${tool.scope})`,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: { title: tool.title, ...tool.annotations },
        },
        ((input: unknown) => this.call(name, tool, input, principal, gatewayOrigin)) as never,
      );
    }
    return server;
  }

  private async call(
    name: string,
    tool: McpTool,
    input: unknown,
    principal: AgentPrincipal,
    gatewayOrigin: string,
  ): Promise<CallToolResult> {
    try {
      if (tool.gated) {
        const { state } = await this.aggregates.user.state(principal.userId);
        if (state.onboardingStep < 3) throw onboardingIncomplete();
      }
      const output = await tool.run(input as never, principal, gatewayOrigin);
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    } catch (error) {
      // In the text only: the SDK's client checks structuredContent against the tool's output
      // schema even on an error result (typescript-sdk#1943), and would throw the failure away.
      const failure = this.failureOf(error, name, principal);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure) }] };
    }
  }

  private failureOf(error: unknown, tool: string, principal: AgentPrincipal): ToolFailureResult {
    const expected = expectedToolFailure(error);
    if (expected) return expected;
    this.logger.error(
      { err: error, tool, clientId: principal.clientId, userId: principal.userId },
      'MCP tool failed',
    );
    return toolFailed(TOOL_FAILURE_CODES.internal, 'the shop could not complete this action right now');
  }

  /** The operator's approval page, else the test page where it is served; production without one has none. */
  private approvalUrlOf(orderId: string, gatewayOrigin: string): string | undefined {
    if (this.config.ORDER_APPROVAL_URL) return orderApprovalUrlOf(this.config.ORDER_APPROVAL_URL, orderId);
    return servesTestPage(this.config) ? testPageOrderUrl(gatewayOrigin, orderId) : undefined;
  }

  private definitions(): Record<string, McpTool> {
    return {
      search_products: {
        scope: 'catalog',
        gated: false,
        title: 'Search products',
        description:
          'Search the catalogue: what the shopper wants in query, their constraints in the filters. Prices in the results are USD cents.',
        inputSchema: searchProductsInputSchema,
        outputSchema: searchProductsResultSchema.extend({ success: z.literal(true) }),
        annotations: { ...readOnly, openWorldHint: true },
        run: async (input: z.infer<typeof searchProductsInputSchema>) =>
          searchProductsOutput(await this.products.search(productQueryOf(input))),
      },
      get_product_details: {
        scope: 'catalog',
        gated: false,
        title: 'Product details',
        description: 'One product by the productId a search returned.',
        inputSchema: getProductDetailsInputSchema,
        outputSchema: productOrMissing,
        annotations: { ...readOnly, openWorldHint: true },
        run: async ({ productId }: z.infer<typeof getProductDetailsInputSchema>) => {
          const product = await this.products.product(productId);
          return { product: product ? productCardOf(product) : null };
        },
      },
      compare_products: {
        scope: 'catalog',
        gated: false,
        title: 'Compare products',
        description: 'Two to five products side by side (price, brand, sizes, colours), by productId.',
        inputSchema: z.object({ productIds: z.array(z.string().trim().min(1).max(255)).min(2).max(5) }),
        outputSchema: z.object({ products: z.array(productOrMissing.shape.product) }),
        annotations: { ...readOnly, openWorldHint: true },
        run: async ({ productIds }: { productIds: string[] }) => ({
          products: await Promise.all(
            productIds.map(async (productId) => {
              const product = await this.products.product(productId);
              return product ? productCardOf(product) : null;
            }),
          ),
        }),
      },
      view_cart: {
        scope: 'cart',
        gated: true,
        title: 'View cart',
        description: "The items in the shopper's cart (at most 10).",
        inputSchema: viewCartInputSchema,
        outputSchema: z.object({ items: z.array(cartItemSchema) }),
        annotations: { ...readOnly, openWorldHint: false },
        run: async (_input: unknown, { userId }: AgentPrincipal) => ({
          items: (await this.queries.execute(new GetCartQuery(userId))).items.map(cartItemView),
        }),
      },
      add_to_cart: {
        scope: 'cart',
        gated: true,
        title: 'Add to cart',
        description:
          'Add a product, copying productId, productName, price, image, productUrl and retailer from a search or details result. At most 10 items; the same product, size and colour only once.',
        inputSchema: addToCartInputSchema.extend({ idempotencyKey: idempotencyKey.optional() }),
        outputSchema: z.object({ item: cartItemSchema }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        run: async (
          {
            idempotencyKey: key,
            ...product
          }: z.infer<typeof addToCartInputSchema> & { idempotencyKey?: string },
          { userId }: AgentPrincipal,
        ) => ({
          item: cartItemView(
            await this.cart.add(userId, product, {
              correlationId: currentCorrelationId(),
              commandId: idempotentCommandId(userId, 'cart.add', key),
            }),
          ),
        }),
      },
      remove_from_cart: {
        scope: 'cart',
        gated: true,
        title: 'Remove from cart',
        description: 'Remove one item from the cart by its cart item id.',
        inputSchema: removeFromCartInputSchema,
        outputSchema: z.object({ itemId: z.string(), removed: z.boolean() }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
        },
        run: async ({ itemId }: z.infer<typeof removeFromCartInputSchema>, { userId }: AgentPrincipal) => {
          await this.cart.remove(userId, itemId, { correlationId: currentCorrelationId() });
          return { itemId, removed: true };
        },
      },
      checkout: {
        scope: 'checkout',
        gated: true,
        title: 'Check out a cart item',
        description:
          "Create the payment order for one cart item. The order waits for the shopper's approval: they approve the payment themselves (the provider emails them a one-time code); the agent cannot pay. A retried call with the same idempotencyKey answers the same order.",
        inputSchema: checkoutInputSchema.extend({ idempotencyKey }),
        outputSchema: z.object({
          orderId: z.string(),
          providerOrderId: z.string(),
          phase: z.string(),
          walletAddress: z.string().describe("the shopper's wallet that must approve the payment"),
          approvalUrl: z
            .url()
            .optional()
            .describe("the page where the shopper approves this order's payment: give it to them"),
          approval: z.string(),
        }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true,
        },
        run: async (
          {
            cartItemId,
            idempotencyKey: key,
          }: z.infer<typeof checkoutInputSchema> & { idempotencyKey: string },
          { userId }: AgentPrincipal,
          gatewayOrigin: string,
        ) => {
          // The serialized transaction is for the shopper's wallet, never for the agent.
          const { orderId, providerOrderId, phase, walletAddress } = await this.commands.execute(
            new CheckoutCommand(userId, cartItemId, idempotentCommandId(userId, 'checkout', key)),
          );
          const approvalUrl = this.approvalUrlOf(orderId, gatewayOrigin);
          return {
            orderId,
            providerOrderId,
            phase,
            walletAddress,
            ...(approvalUrl && { approvalUrl }),
            approval: approvalUrl
              ? `Awaiting the shopper's approval: send them to ${approvalUrl}, where they approve the payment with the one-time code the payment provider emails them.`
              : "Awaiting the shopper's approval: they approve the payment in the shop's orders, signed in with their own account, with the one-time code the payment provider emails them.",
          };
        },
      },
      list_orders: {
        scope: 'orders',
        gated: true,
        title: 'List orders',
        description: "The shopper's orders, newest first, with their status.",
        inputSchema: z.object({
          page: z.number().int().min(1).max(1_000_000).optional(),
          limit: z.number().int().min(1).max(100).optional(),
          status: z.enum(orderStatuses).optional(),
        }),
        outputSchema: orderPage,
        annotations: readOnly,
        run: async (
          { page, limit, status }: { page?: number; limit?: number; status?: (typeof orderStatuses)[number] },
          { userId }: AgentPrincipal,
        ) =>
          (await this.queries.execute(
            new ListOrdersQuery(userId, page ?? 1, limit ?? 20, status ? { status } : {}),
          )) as unknown as Record<string, unknown>,
      },
      get_order: {
        scope: 'orders',
        gated: true,
        title: 'One order',
        description: 'One order with its live status at the payment provider.',
        inputSchema: z.object({ orderId: z.uuid() }),
        outputSchema: z.object({ order: orderSchema }),
        annotations: readOnly,
        run: async ({ orderId }: { orderId: string }, { userId }: AgentPrincipal) => ({
          order: await this.queries.execute(new GetOrderQuery(userId, orderId)),
        }),
      },
    };
  }
}
