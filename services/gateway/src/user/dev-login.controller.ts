import { Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { ApiRoute } from '@shop/http';
import { ValidBody } from '@shop/http';
import { CONFIG } from '../infrastructure/tokens';
import { EMAIL_COOKIE, SESSION_COOKIE, setSessionCookie } from '../auth/session-cookies';
import { TokenVerifier } from '../auth/token-verifier';
import { RegisterUserCommand } from './register-user.command';

const devLoginBody = z.object({ email: z.email().max(320).optional() });
const defaultDevEmail = 'dev@example.com';

/** Outside production only: registered only when the verifier has a dev key. */
@Controller('api/dev')
export class DevLoginController {
  constructor(
    private readonly commands: CommandBus,
    private readonly verifier: TokenVerifier,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Development login: registers the user if needed and sets a session cookie (not in production)',
    tags: ['dev'],
    access: 'public',
    body: devLoginBody,
    responses: {
      200: {
        description: 'Session cookie set',
        schema: z.object({ success: z.literal(true), userId: z.uuid(), email: z.string() }),
      },
    },
    errors: [
      { status: 400, code: 'VALIDATION_ERROR', description: 'email is not an email address' },
      { status: 403, code: 'ACCOUNT_CLOSED', description: 'the account of this identity was closed' },
    ],
  })
  async login(
    @ValidBody() body: z.infer<typeof devLoginBody>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: true; userId: string; email: string }> {
    const email = (body.email ?? defaultDevEmail).toLowerCase();
    const { token, identity } = await this.verifier.issueDevToken(email);
    const { userId } = await this.commands.execute(new RegisterUserCommand(identity.providerSubject, email));
    const policy = { secure: this.config.NODE_ENV === 'production' };
    setSessionCookie(reply, SESSION_COOKIE, token, identity.expiresAt, policy);
    setSessionCookie(reply, EMAIL_COOKIE, email, identity.expiresAt, policy);
    return { success: true, userId, email };
  }
}
