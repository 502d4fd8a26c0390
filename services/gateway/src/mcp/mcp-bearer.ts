import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentScopes } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { RateLimiter, rateLimitHeaders } from '@shop/redis';
import { RATE_LIMITER } from '../infrastructure/tokens';
import type { AgentPrincipal } from './agent-credentials';
import { AgentTokenStore } from './agent-token-store';
import { mcpResourceOf, resourceMetadataUrlOf } from './mcp-urls';

/**
 * Who calls /mcp: a bearer access token this gateway issued for this resource, whose grant still
 * stands (the stream says, so a revocation counts on its next call) for an open account. Anything
 * else is answered 401 with the challenge that starts an agent's authorization (RFC 9728 §5.1).
 * Each grant has the request budget of a signed-in shopper.
 */
@Injectable()
export class McpBearer {
  constructor(
    private readonly tokens: AgentTokenStore,
    private readonly aggregates: Aggregates,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  /** The caller's principal, or undefined once the refusal has been sent. */
  async authenticate(request: FastifyRequest, reply: FastifyReply): Promise<AgentPrincipal | undefined> {
    const header = request.headers.authorization;
    const token = header?.match(/^Bearer +([A-Za-z0-9._~+/-]+=*)$/i)?.[1];
    if (!token) return this.challenge(request, reply, undefined);
    const principal = await this.tokens.readAccessToken(token);
    if (!principal) return this.challenge(request, reply, 'the access token is invalid or expired');
    if (principal.resource !== mcpResourceOf(request))
      return this.challenge(request, reply, 'the access token was issued for another resource');
    const [{ state: grant }, { state: user }] = await Promise.all([
      this.aggregates.agentGrant.state(principal.grantId),
      this.aggregates.user.state(principal.userId),
    ]);
    if (!grant.exists || grant.revoked) return this.challenge(request, reply, 'the grant was revoked');
    if (user.closed) return this.challenge(request, reply, 'the account is closed');

    const decision = await this.limiter.hit(`agent:${principal.grantId}`);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      reply
        .status(429)
        .headers(headers)
        .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many requests; slow down' } });
      return undefined;
    }
    reply.headers(headers);
    return principal;
  }

  /** 403 with the scope the call needs (the MCP spec's step-up challenge). */
  refuseScope(request: FastifyRequest, reply: FastifyReply, scope: string): void {
    reply
      .status(403)
      .header(
        'www-authenticate',
        `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrlOf(request)}", error_description="this tool needs the ${scope} scope"`,
      )
      .send({ error: 'insufficient_scope', error_description: `this tool needs the ${scope} scope` });
  }

  private challenge(request: FastifyRequest, reply: FastifyReply, problem: string | undefined): undefined {
    const error = problem ? `, error="invalid_token", error_description="${problem}"` : '';
    reply
      .status(401)
      .header(
        'www-authenticate',
        `Bearer resource_metadata="${resourceMetadataUrlOf(request)}", scope="${agentScopes.join(' ')}"${error}`,
      )
      .send({
        error: problem ? 'invalid_token' : 'unauthorized',
        error_description: problem ?? 'a bearer token is required',
      });
    return undefined;
  }
}
