import { createHash } from 'node:crypto';
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
import { RawBodyRoute } from '../http/body-parsers';
import { CONFIG } from '../infrastructure/tokens';
import { RecordProviderWebhookCommand } from './record-provider-webhook.command';
import { RecordUnrecognizedWebhookCommand } from './record-unrecognized-webhook.command';

const deliveryIdPattern = /^[A-Za-z0-9_:-]{1,200}$/;

/**
 * The delivery's subject id. A signed svix id that cannot be a subject token is still a
 * delivery: it is named by its digest, which is as stable across redeliveries as the id.
 */
function deliveryKeyOf(svixId: string): string {
  return deliveryIdPattern.test(svixId)
    ? svixId
    : `sha256_${createHash('sha256').update(svixId).digest('hex')}`;
}

/**
 * The provider's webhook deliveries (signed with svix). The signature is checked on the exact
 * bytes received; every verified delivery is recorded on its own subject and answered at once
 * (one the parser cannot read is recorded raw, never refused, or the sender would retry it
 * forever), and a process manager turns it into order events or parks it for an operator.
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
  @RawBodyRoute()
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
      { status: 413, code: 'PAYLOAD_TOO_LARGE', description: 'body over 1 MiB' },
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
    const body = request.rawBody ?? Buffer.alloc(0);
    let payload: unknown;
    let readable = true;
    try {
      payload = this.verifier.verify(body, headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new DomainError('unauthorized', 'UNAUTHORIZED', `Invalid webhook signature: ${error.message}`);
      }
      // The signature is checked before the body is parsed: a SyntaxError is a verified body
      // that is not JSON.
      if (!(error instanceof SyntaxError)) throw error;
      readable = false;
    }
    const deliveryId = deliveryKeyOf(headers['svix-id'] ?? headers['webhook-id'] ?? '');
    const event = readable ? providerWebhookEventSchema.safeParse(payload) : null;
    const recorded = await this.commands.execute(
      event?.success
        ? new RecordProviderWebhookCommand(deliveryId, event.data)
        : new RecordUnrecognizedWebhookCommand(
            deliveryId,
            body,
            event
              ? 'body is not a provider order event'
              : `body is not JSON (content type ${String(headers['content-type'] ?? 'none').slice(0, 100)})`,
          ),
    );
    return { received: true, duplicate: !recorded };
  }
}
