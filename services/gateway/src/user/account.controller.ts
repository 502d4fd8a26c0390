import { Controller, Delete, HttpCode, Inject, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { ApiRoute } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import { ReadsReadModel } from '../consistency/reads-read-model.decorator';
import { clearSessionCookies, cookiePolicy, sessionCookieFamilies } from '../auth/session-cookies';
import type { SessionIdentity } from '../auth/session-identity';
import { CONFIG } from '../infrastructure/tokens';
import { CloseAccountCommand } from './close-account.command';

@Controller('api/auth')
export class AccountController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Delete('account')
  // Open orders and the account's sessions are read from the read model.
  @ReadsReadModel()
  @HttpCode(200)
  @ApiRoute({
    summary:
      "Close the signed-in user's account and erase their personal data (profile, address, sizes, memories, every chat session)",
    tags: ['auth'],
    access: 'session',
    responses: {
      200: {
        description: 'Account closed, data erased, cookies cleared',
        schema: z.object({ success: z.literal(true) }),
      },
    },
    errors: [
      { status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' },
      { status: 404, code: 'USER_NOT_FOUND', description: 'valid JWT, no user record' },
      { status: 409, code: 'ORDER_OPEN', description: 'an order is not yet delivered or cancelled' },
    ],
  })
  async close(
    @CurrentIdentity() identity: SessionIdentity,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: true }> {
    await this.commands.execute(new CloseAccountCommand(identity.userId));
    clearSessionCookies(reply, sessionCookieFamilies(this.config), cookiePolicy(this.config));
    return { success: true };
  }
}
