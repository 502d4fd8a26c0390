import { randomUUID } from 'node:crypto';
import { Controller, Get, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import OAuth2Server, { OAuthError } from '@node-oauth/oauth2-server';
import { agentScopes } from '@shop/contracts';
import { Aggregates, asActingAgent } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';
import { ApiRoute, apiSchema } from '@shop/http';
import { RateLimiter, rateLimitHeaders } from '@shop/redis';
import type { AuthenticatedRequest } from '../auth/session-identity';
import { RawBodyRoute, rawTextOf } from '../http/body-parsers';
import { gatedErrors } from '../http/common-errors';
import { RATE_LIMITER } from '../infrastructure/tokens';
import { credentialHash, grantOfRefreshToken, randomSecret } from './agent-credentials';
import { AgentOAuthModel, agentOAuthServer, isAgentScope } from './agent-oauth-model';
import { AgentTokenStore, AuthorizationRequest } from './agent-token-store';
import { authorizationErrorPage, consentPage } from './consent-page';
import { ConsentSignInFilter } from './consent-sign-in.filter';
import {
  authorizationServerMetadataPath,
  issuerOf,
  mcpPath,
  mcpResourceOf,
  protectedResourceMetadataPath,
} from './mcp-urls';

const oauthError = apiSchema(
  'OAuthError',
  z.object({ error: z.string(), error_description: z.string().optional() }),
);
const tokenRequest = apiSchema(
  'OAuthTokenRequest',
  z.object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    client_id: z.string(),
    code: z.string().optional().describe('authorization_code: the code the redirect carried'),
    code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier (S256)'),
    redirect_uri: z.string().optional().describe('authorization_code: as in the authorization request'),
    refresh_token: z.string().optional().describe('refresh_token: spent by this exchange'),
    scope: z.string().optional().describe('refresh_token: a narrower set of the granted scopes'),
    resource: z.string().optional().describe("RFC 8707: must be this gateway's /mcp"),
  }),
);
const tokenResponse = apiSchema(
  'OAuthTokenResponse',
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number(),
    refresh_token: z.string(),
    scope: z.string(),
  }),
);
const revokeRequest = apiSchema(
  'OAuthRevocationRequest',
  z.object({ token: z.string(), token_type_hint: z.string().optional(), client_id: z.string() }),
);
const registrationRequest = apiSchema(
  'OAuthClientRegistrationRequest',
  z.object({
    client_name: z.string().min(1).max(200),
    redirect_uris: z.array(z.url()).min(1).max(10),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    token_endpoint_auth_method: z.literal('none').optional(),
    scope: z.string().optional(),
  }),
);
const registrationResponse = apiSchema(
  'OAuthClientRegistrationResponse',
  z.object({
    client_id: z.uuid(),
    client_id_issued_at: z.number(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    scope: z.string(),
  }),
);
const looseObject = z.record(z.string(), z.unknown());
const authorizeQuery = z.object({
  response_type: z.string().optional(),
  client_id: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_challenge: z.string().optional(),
  code_challenge_method: z.string().optional(),
  scope: z.string().optional(),
  state: z.string().optional(),
  resource: z.string().optional(),
});

/** A form body (OAuth's), taken from the raw bytes: the gateway's parsers read JSON and text only. */
function formOf(request: FastifyRequest): Record<string, string> {
  const text = rawTextOf(request);
  if ((request.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object')
        return Object.fromEntries(
          Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        );
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const sendOAuthError = (reply: FastifyReply, status: number, error: string, description: string) =>
  reply.status(status).header('cache-control', 'no-store').send({ error, error_description: description });

function redirectWith(reply: FastifyReply, redirectUri: string, params: Record<string, string | undefined>) {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) target.searchParams.set(name, value);
  return reply.redirect(target.toString(), 302);
}

/**
 * The authorization server outside agents use to get a shopper's consent (the MCP authorization
 * spec): metadata (RFC 9728, RFC 8414), dynamic client registration (RFC 7591), the authorization
 * endpoint with its consent page, the token endpoint (authorization code with PKCE S256 and
 * refresh, through @node-oauth/oauth2-server) and revocation (RFC 7009).
 */
@Controller()
export class AgentOAuthController {
  private readonly server: OAuth2Server;

  constructor(
    private readonly model: AgentOAuthModel,
    private readonly aggregates: Aggregates,
    private readonly tokens: AgentTokenStore,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {
    this.server = agentOAuthServer(model);
  }

  @Get(`${protectedResourceMetadataPath.slice(1)}${mcpPath}`)
  @ApiRoute({
    summary:
      'Protected-resource metadata of the MCP server (RFC 9728): its resource id, authorization server and scopes',
    tags: ['agents'],
    access: 'public',
    responses: { 200: { description: 'The metadata', schema: looseObject } },
  })
  resourceMetadata(@Req() request: FastifyRequest): Record<string, unknown> {
    return {
      resource: mcpResourceOf(request),
      authorization_servers: [issuerOf(request)],
      scopes_supported: [...agentScopes],
      bearer_methods_supported: ['header'],
      resource_name: 'Shop (MCP)',
    };
  }

  @Get(protectedResourceMetadataPath.slice(1))
  @ApiRoute({
    summary: 'The same protected-resource metadata, at the root well-known path',
    tags: ['agents'],
    access: 'public',
    responses: { 200: { description: 'The metadata', schema: looseObject } },
  })
  rootResourceMetadata(@Req() request: FastifyRequest): Record<string, unknown> {
    return this.resourceMetadata(request);
  }

  @Get(authorizationServerMetadataPath.slice(1))
  @ApiRoute({
    summary: 'Authorization-server metadata (RFC 8414): endpoints, PKCE S256 only, public clients only',
    tags: ['agents'],
    access: 'public',
    responses: { 200: { description: 'The metadata', schema: looseObject } },
  })
  serverMetadata(@Req() request: FastifyRequest): Record<string, unknown> {
    const issuer = issuerOf(request);
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: [...agentScopes],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
    };
  }

  @Post('oauth/register')
  // Read here rather than by the gateway's parsers, so a body no parser takes is RFC 7591's error too.
  @RawBodyRoute()
  @ApiRoute({
    summary: 'Dynamic client registration (RFC 7591) of an outside agent: a public client (PKCE, no secret)',
    tags: ['agents'],
    access: 'public',
    body: registrationRequest,
    responses: {
      201: { description: 'The registered client', schema: registrationResponse },
      400: { description: 'invalid_client_metadata', schema: oauthError },
      429: { description: 'slow_down: too many registrations from this address', schema: oauthError },
    },
  })
  async register(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Anyone may register, and each registration is an event: each address gets a shopper's budget.
    const decision = await this.limiter.hit(`agent-registration:${request.ip}`);
    if (!decision.allowed) {
      reply.status(429).headers(rateLimitHeaders(decision));
      sendOAuthError(reply, 429, 'slow_down', 'Too many registrations; slow down');
      return;
    }
    const checked = registrationRequest.safeParse(jsonOf(rawTextOf(request)));
    if (!checked.success) {
      const issues = checked.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
      sendOAuthError(reply, 400, 'invalid_client_metadata', issues.join('; '));
      return;
    }
    const metadata = checked.data;
    const scopes = (metadata.scope ?? agentScopes.join(' ')).split(' ').filter(isAgentScope);
    const clientId = randomUUID();
    await asActingAgent(clientId, () =>
      this.aggregates.agentClient.execute(
        clientId,
        {
          type: 'RegisterAgentClient',
          clientName: metadata.client_name,
          redirectUris: metadata.redirect_uris,
        },
        { actor: { kind: 'system', id: 'agent-registration' }, correlationId: currentCorrelationId() },
      ),
    );
    reply
      .status(201)
      .header('cache-control', 'no-store')
      .send({
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        client_name: metadata.client_name,
        redirect_uris: metadata.redirect_uris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: (scopes.length > 0 ? scopes : agentScopes).join(' '),
      });
  }

  @Get('oauth/authorize')
  @UseFilters(ConsentSignInFilter)
  @ApiRoute({
    summary:
      "The consent page: the signed-in shopper sees the agent's name and the scopes it asks for, and approves or refuses",
    tags: ['agents'],
    access: 'session',
    query: authorizeQuery,
    responses: {
      200: { description: 'The consent page (HTML)', contentType: 'text/html' },
      302: {
        description: 'Back to the agent with an error (invalid_request, invalid_scope, invalid_target)',
      },
    },
    errors: [
      {
        status: 400,
        code: 'invalid_request',
        description: 'unknown client or unregistered redirect_uri (HTML page)',
      },
      gatedErrors[0]!,
    ],
  })
  async authorize(@Req() request: AuthenticatedRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = authorizeQuery.safeParse(request.query);
    const params = query.success ? query.data : {};
    const html = (status: number, body: string) =>
      reply.status(status).header('content-type', 'text/html; charset=utf-8').send(body);
    const client = params.client_id ? await this.model.getClient(params.client_id) : null;
    if (!client) return void html(400, authorizationErrorPage('This agent is not registered with the shop.'));
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !(client.redirectUris as string[]).includes(redirectUri))
      return void html(
        400,
        authorizationErrorPage('The agent asked to be answered at an address it did not register.'),
      );
    const back = (error: string, description: string) =>
      void redirectWith(reply, redirectUri, { error, error_description: description, state: params.state });
    if (params.response_type !== 'code')
      return back('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge || params.code_challenge_method !== 'S256')
      return back('invalid_request', 'PKCE with code_challenge_method S256 is required');
    const resource = mcpResourceOf(request);
    if (params.resource !== undefined && params.resource !== resource)
      return back('invalid_target', `this server issues tokens for ${resource} only`);
    const scopes = params.scope ? params.scope.split(' ').filter((s) => s.length > 0) : [...agentScopes];
    if (scopes.length === 0 || !scopes.every(isAgentScope))
      return back('invalid_scope', `scopes are ${agentScopes.join(', ')}`);

    const consentId = randomSecret();
    const authorization: AuthorizationRequest = {
      clientId: client.id,
      clientName: client.clientName as string,
      redirectUri,
      scopes: [...new Set(scopes)],
      state: params.state,
      codeChallenge: params.code_challenge,
      resource,
    };
    await this.tokens.saveConsent(consentId, request.identity!.userId, authorization);
    reply
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      // A browser holds the form's redirect to the agent to form-action too.
      .header(
        'content-security-policy',
        `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${new URL(redirectUri).origin}; frame-ancestors 'none'`,
      );
    html(200, consentPage({ ...authorization, consentId }));
  }

  @Post('oauth/authorize')
  @UseFilters(ConsentSignInFilter)
  @RawBodyRoute()
  @ApiRoute({
    summary:
      "The shopper's answer on the consent page: approve sends the agent an authorization code, refuse sends access_denied",
    tags: ['agents'],
    access: 'session',
    body: z.object({ consent: z.string(), decision: z.enum(['approve', 'refuse']) }),
    bodyContentType: 'application/x-www-form-urlencoded',
    responses: { 302: { description: 'Back to the agent: code and state, or error=access_denied' } },
    errors: [
      { status: 400, code: 'invalid_request', description: 'unknown or expired consent (HTML page)' },
      gatedErrors[0]!,
    ],
  })
  async decide(@Req() request: AuthenticatedRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(request);
    const consent = form.consent
      ? await this.tokens.takeConsent(form.consent, request.identity!.userId)
      : undefined;
    if (!consent || (form.decision !== 'approve' && form.decision !== 'refuse')) {
      reply
        .status(400)
        .header('content-type', 'text/html; charset=utf-8')
        .send(
          authorizationErrorPage(
            'This request has expired or was already answered. Ask the agent to connect again.',
          ),
        );
      return;
    }
    if (form.decision === 'refuse') {
      redirectWith(reply, consent.redirectUri, {
        error: 'access_denied',
        error_description: 'the shopper refused',
        state: consent.state,
      });
      return;
    }
    const holder = {
      userId: request.identity!.userId,
      grantId: randomUUID(),
      clientName: consent.clientName,
      resource: consent.resource,
    };
    const oauthRequest = new OAuth2Server.Request({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      query: {},
      body: {
        response_type: 'code',
        client_id: consent.clientId,
        redirect_uri: consent.redirectUri,
        scope: consent.scopes.join(' '),
        ...(consent.state !== undefined && { state: consent.state }),
        code_challenge: consent.codeChallenge,
        code_challenge_method: 'S256',
      },
    });
    const oauthResponse = new OAuth2Server.Response({ headers: {} });
    try {
      await this.server.authorize(oauthRequest, oauthResponse, {
        authenticateHandler: { handle: () => holder },
      });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
    }
    reply.redirect(oauthResponse.get('location') as string, 302);
  }

  @Post('oauth/token')
  @RawBodyRoute()
  @ApiRoute({
    summary:
      'Token endpoint: an authorization code with its PKCE verifier, or a refresh token (spent by the exchange), for a 10-minute access token bound to the shopper, the agent and /mcp',
    tags: ['agents'],
    access: 'public',
    body: tokenRequest,
    bodyContentType: 'application/x-www-form-urlencoded',
    responses: {
      200: { description: 'Tokens', schema: tokenResponse },
      400: {
        description:
          'invalid_request; invalid_grant (code or refresh token invalid, spent, expired or revoked); invalid_target (resource is not this MCP server)',
        schema: oauthError,
      },
    },
  })
  async token(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(request);
    if (form.resource !== undefined && form.resource !== mcpResourceOf(request)) {
      sendOAuthError(
        reply,
        400,
        'invalid_target',
        `this server issues tokens for ${mcpResourceOf(request)} only`,
      );
      return;
    }
    const oauthRequest = new OAuth2Server.Request({
      method: 'POST',
      // The library reads the form only from a request that says it has one (type-is).
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(new URLSearchParams(form).toString().length),
        ...(request.headers.authorization && { authorization: request.headers.authorization }),
      },
      query: {},
      body: form,
    });
    const oauthResponse = new OAuth2Server.Response({ headers: {} });
    try {
      await this.server.token(oauthRequest, oauthResponse);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      sendOAuthError(reply, error.code, error.name, error.message);
      return;
    }
    reply
      .status(200)
      .headers(oauthResponse.headers as Record<string, string>)
      .send(oauthResponse.body);
  }

  @Post('oauth/revoke')
  @RawBodyRoute()
  @ApiRoute({
    summary:
      'Token revocation (RFC 7009) by the agent: a refresh token ends the grant, an access token ends itself; answers 200 whatever the token',
    tags: ['agents'],
    access: 'public',
    body: revokeRequest,
    bodyContentType: 'application/x-www-form-urlencoded',
    responses: {
      200: { description: 'Revoked (or never valid)' },
      400: { description: 'invalid_request: token or client_id missing', schema: oauthError },
    },
  })
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(request);
    if (!form.token || !form.client_id) {
      sendOAuthError(reply, 400, 'invalid_request', 'token and client_id are required');
      return;
    }
    const access = await this.tokens.readAccessToken(form.token);
    if (access?.clientId === form.client_id) await this.tokens.dropAccessToken(form.token);
    const grantId = grantOfRefreshToken(form.token);
    if (grantId) {
      const { state } = await this.aggregates.agentGrant.state(grantId);
      if (
        state.exists &&
        state.refreshTokenHash === credentialHash(form.token) &&
        state.clientId === form.client_id
      )
        await asActingAgent(form.client_id, () =>
          this.aggregates.agentGrant.execute(
            grantId,
            { type: 'RevokeAgentGrant', by: { kind: 'agent', clientId: form.client_id! } },
            { actor: { kind: 'user', id: state.userId }, correlationId: currentCorrelationId() },
          ),
        );
    }
    reply.status(200).header('cache-control', 'no-store').send({});
  }
}
