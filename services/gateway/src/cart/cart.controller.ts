import { Controller, Delete, Get, Header, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { DomainError } from '@shop/domain';
import { ApiRoute, ValidBody, ValidParams } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors, validationError } from '../http/common-errors';
import { CorrelationId } from '../http/correlation-id.decorator';
import { idempotentCommandId } from '../http/idempotency';
import { CONFIG } from '../infrastructure/tokens';
import { addCartItemBody, cartItemSchema } from './cart-item.schema';
import type { AddCartItemBody, CartItemResponse } from './cart-item.schema';
import { cartAddressSchema, cartInfoSchema, cartInitSchema, cartListSchema } from './cart-responses.schema';
import { CartService } from './cart-service';
import { GetCartQuery } from './get-cart.query';

const itemParams = z.object({ itemId: z.uuid() });

@Controller('api/cart')
export class CartController {
  constructor(
    private readonly cart: CartService,
    private readonly queries: QueryBus,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get()
  @ApiRoute({
    summary: 'Active items of the cart',
    tags: ['cart'],
    access: 'gated',
    responses: { 200: { description: 'The cart', schema: cartListSchema } },
    errors: gatedErrors,
  })
  // The body is `{ items }` written around the items' JSON as the cart cache holds it: a cached
  // cart is neither parsed nor serialized again.
  @Header('content-type', 'application/json; charset=utf-8')
  async list(@CurrentIdentity() identity: SessionIdentity): Promise<string> {
    const { json } = await this.queries.execute(new GetCartQuery(identity.userId));
    return `{"items":${json}}`;
  }

  @Post()
  @ApiRoute({
    summary:
      'Add a product (at most 10 items; product, size and color unique). Idempotency-Key makes retries safe.',
    tags: ['cart'],
    access: 'gated',
    body: addCartItemBody,
    responses: { 201: { description: 'The created item', schema: cartItemSchema } },
    errors: [
      validationError,
      { status: 400, code: 'CartFullError', description: 'cart already has 10 items' },
      {
        status: 400,
        code: 'CartInvalidProductError',
        description: 'price not a positive integer, or image/productUrl not an http(s) URL',
      },
      {
        status: 409,
        code: 'CartDuplicateItemError',
        description: 'same product, size and color already in cart',
      },
      ...gatedErrors,
    ],
  })
  add(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: AddCartItemBody,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @CorrelationId() correlationId: string | undefined,
  ): Promise<CartItemResponse> {
    const commandId = idempotentCommandId(identity.userId, 'cart.add', idempotencyKey);
    return this.cart.add(identity.userId, body, { correlationId, commandId });
  }

  @Delete(':itemId')
  @HttpCode(204)
  @ApiRoute({
    summary: 'Remove an item (soft delete)',
    tags: ['cart'],
    access: 'gated',
    params: itemParams,
    responses: { 204: { description: 'Removed' } },
    errors: [
      validationError,
      { status: 404, code: 'CartItemNotFoundError', description: 'item missing or owned by another user' },
      ...gatedErrors,
    ],
  })
  async remove(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof itemParams>,
    @CorrelationId() correlationId: string | undefined,
  ): Promise<void> {
    await this.cart.remove(identity.userId, params.itemId, { correlationId });
  }

  @Post('init')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Create the on-chain cart (CART_SERVICE=onchain); idempotent',
    tags: ['cart'],
    access: 'gated',
    responses: { 200: { description: 'Created, or it already existed', schema: cartInitSchema } },
    errors: [
      { status: 400, code: 'CONTRACT_NOT_CONFIGURED', description: 'CHAIN_CONTRACT_ADDRESS not set' },
      { status: 400, code: 'WALLET_NOT_PROVISIONED', description: 'on-chain wallet not provisioned' },
      ...gatedErrors,
    ],
  })
  async init(@CurrentIdentity() identity: SessionIdentity): Promise<{ created: boolean; message: string }> {
    if (!this.config.CHAIN_CONTRACT_ADDRESS) {
      throw new DomainError(
        'invalid',
        'CONTRACT_NOT_CONFIGURED',
        'No cart contract is configured (CHAIN_CONTRACT_ADDRESS)',
      );
    }
    return this.cart.init(identity.userId);
  }

  @Get('address')
  @ApiRoute({
    summary: 'Address of the on-chain cart object; null in database mode',
    tags: ['cart'],
    access: 'gated',
    responses: { 200: { description: 'Cart address', schema: cartAddressSchema } },
    errors: gatedErrors,
  })
  async address(
    @CurrentIdentity() identity: SessionIdentity,
  ): Promise<{ cartAddress: string | null; exists: boolean }> {
    return this.cart.address(identity.userId);
  }

  @Get('info')
  @ApiRoute({
    summary: 'On-chain cart summary; in database mode the address is empty and exists is false',
    tags: ['cart'],
    access: 'gated',
    responses: { 200: { description: 'Cart info', schema: cartInfoSchema } },
    errors: gatedErrors,
  })
  async info(
    @CurrentIdentity() identity: SessionIdentity,
  ): Promise<{ cartAddress: string; itemCount: number; exists: boolean }> {
    return this.cart.info(identity.userId);
  }
}
