import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Webhook, WebhookVerificationError } from 'svix';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { DomainError } from '@shop/domain';
import { ApiRoute } from '@shop/http';
import { providerWebhookEventSchema } from '@shop/provider';
import { CONFIG } from '../infrastructure/tokens';
import { RecordProviderWebhookCommand } from './record-provider-webhook.command';

const deliveryIdPattern = /^[A-Za-z0-9_:-]{1,200}$/;

/**
 * The provider's webhook deliveries (signed with svix). The signature is checked on the exact
 * bytes received; a verified delivery is recorded on its own subject and answered at once,
 * and a process manager turns it into order events.
 */
@Controller('api/webhooks')
export class ProviderWebhookController {
  private readonly verifier: Webhook | null;

  constructor(
    private readonly commands: CommandBus,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.verifier = config.PROVIDER_WEBHOOK_SECRET ? new Webhook(config.PROVIDER_WEBHOOK_SECRET) : null;
  }

  @Post('provider')
  @HttpCode(200)
  @ApiRoute({
    summary:
      'Provider webhook deliveries (svix-signed; headers svix-id, svix-timestamp, svix-signature). Redeliveries are acknowledged with no second effect.',
    tags: ['webhooks'],
    access: 'public',
    responses: {
      200: {
        description: 'Recorded (or already recorded)',
        schema: z.object({ received: z.literal(true), duplicate: z.boolean() }),
      },
    },
    errors: [
      { status: 400, code: 'BAD_REQUEST', description: 'body is not a provider order event' },
      {
        status: 401,
        code: 'UNAUTHORIZED',
        description: 'missing or invalid signature, or timestamp outside tolerance',
      },
      { status: 503, code: 'WEBHOOK_NOT_CONFIGURED', description: 'webhook secret not set' },
    ],
  })
  async receive(
    @Req() request: RawBodyRequest<FastifyRequest>,
  ): Promise<{ received: true; duplicate: boolean }> {
    if (!this.verifier) {
      throw new DomainError('unavailable', 'WEBHOOK_NOT_CONFIGURED', 'Provider webhooks are not configured');
    }
    const headers = request.headers as Record<string, string>;
    let payload: unknown;
    try {
      payload = this.verifier.verify(request.rawBody ?? Buffer.alloc(0), headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new DomainError('unauthorized', 'UNAUTHORIZED', `Invalid webhook signature: ${error.message}`);
      }
      throw new DomainError('invalid', 'BAD_REQUEST', 'Webhook body is not JSON');
    }
    const deliveryId = headers['svix-id'] ?? headers['webhook-id'] ?? '';
    if (!deliveryIdPattern.test(deliveryId))
      throw new DomainError('invalid', 'BAD_REQUEST', 'Unusable delivery id');
    const event = providerWebhookEventSchema.safeParse(payload);
    if (!event.success) throw new DomainError('invalid', 'BAD_REQUEST', 'Body is not a provider order event');
    const recorded = await this.commands.execute(new RecordProviderWebhookCommand(deliveryId, event.data));
    return { received: true, duplicate: !recorded };
  }
}
