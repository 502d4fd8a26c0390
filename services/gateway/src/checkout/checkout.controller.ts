import { Controller, Headers, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, apiSchema, ValidBody } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors, validationError } from '../http/common-errors';
import { idempotentCommandId } from '../http/idempotency';
import { CheckoutCommand } from './checkout.command';

const checkoutBody = apiSchema('CheckoutRequest', z.object({ cartItemId: z.uuid() }));
const checkoutResult = apiSchema(
  'CheckoutResponse',
  z.object({
    orderId: z.uuid(),
    providerOrderId: z.string().describe("the provider's order reference"),
    crossmintOrderId: z
      .string()
      .describe('the same value as providerOrderId, under the name existing clients read'),
    phase: z.string(),
    serializedTransaction: z.string().describe('pre-built EVM transaction for the wallet approval'),
    walletAddress: z.string().describe('EVM wallet that must approve'),
  }),
);

@Controller('api/checkout')
export class CheckoutController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiRoute({
    summary:
      'Create a USDC payment order at the provider for one cart item. A repeated checkout of an item with an open order returns that order; Idempotency-Key makes any retry safe.',
    tags: ['checkout'],
    access: 'gated',
    body: checkoutBody,
    responses: { 201: { description: 'Order created (status awaiting_approval)', schema: checkoutResult } },
    errors: [
      validationError,
      { status: 400, code: 'CheckoutNoWalletError', description: 'EVM wallet not provisioned' },
      { status: 400, code: 'CheckoutMissingAddressError', description: 'shipping address incomplete' },
      { status: 404, code: 'CartItemNotFoundError', description: 'item missing or owned by another user' },
      { status: 409, code: 'CONFLICT', description: 'a checkout of this item is in progress' },
      { status: 422, code: 'InsufficientFundsError', description: 'wallet has too little USDC' },
      { status: 502, code: 'CheckoutOrderCreationError', description: 'provider error creating the order' },
      { status: 502, code: 'CheckoutPaymentError', description: 'provider payment error' },
      ...gatedErrors,
    ],
  })
  async checkout(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: z.infer<typeof checkoutBody>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<z.infer<typeof checkoutResult>> {
    const commandId = idempotentCommandId(identity.userId, 'checkout', idempotencyKey);
    const result = await this.commands.execute(
      new CheckoutCommand(identity.userId, body.cartItemId, commandId),
    );
    return { ...result, crossmintOrderId: result.providerOrderId };
  }
}
