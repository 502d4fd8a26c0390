import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { asActingAgent } from '@shop/commands';
import { ApiRoute } from '@shop/http';
import { RawBodyRoute, rawTextOf } from '../http/body-parsers';
import { McpBearer } from './mcp-bearer';
import { McpTools } from './mcp-tools';
import { issuerOf } from './mcp-urls';

const jsonRpc = z
  .record(z.string(), z.unknown())
  .describe('a JSON-RPC message of the Model Context Protocol');

/** The scopes the JSON-RPC messages of one POST call for (tools/call only; listing is free). */
function toolsCalled(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && typeof params?.name === 'string' ? [params.name] : [];
  });
}

/**
 * The body as JSON, or its text when it is none: the transport then answers JSON-RPC's parse
 * error, after its own checks of Accept and Content-Type, instead of reading the spent stream.
 */
function messageOf(request: FastifyRequest): unknown {
  const text = rawTextOf(request);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const methodNotAllowed = (reply: FastifyReply) =>
  reply
    .status(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Method not allowed: this server is stateless' },
    });

/**
 * The shop's MCP server over Streamable HTTP, stateless: each POST gets its own server and
 * transport, the tools acting for the shopper the bearer token speaks for, and every command
 * they issue records the agent's client id (asActingAgent).
 */
@Controller('mcp')
export class McpController {
  constructor(
    private readonly bearer: McpBearer,
    private readonly tools: McpTools,
  ) {}

  // Every /mcp answer is JSON-RPC's, a body no parser of the gateway takes included.
  @Post()
  @RawBodyRoute()
  @ApiRoute({
    summary:
      'The MCP endpoint (Streamable HTTP, JSON responses): tools to search the catalogue, manage the cart, check out and read orders, for the shopper whose consent the bearer token carries',
    tags: ['agents'],
    access: 'public',
    body: jsonRpc,
    responses: { 200: { description: 'The JSON-RPC answer', schema: jsonRpc } },
    errors: [
      {
        status: 401,
        code: 'invalid_token',
        description:
          'no, expired, forged, revoked or other-audience token; WWW-Authenticate names the resource metadata',
      },
      {
        status: 403,
        code: 'insufficient_scope',
        description: "the token's grant lacks the tool's scope; or an Origin other than this server's",
      },
      { status: 429, code: 'RATE_LIMIT_EXCEEDED', description: 'too many requests under this grant' },
    ],
  })
  async handle(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // The transport spec's guard against DNS rebinding: a page of another origin gets nothing.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== issuerOf(request)) {
      reply
        .status(403)
        .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Origin not allowed' } });
      return;
    }
    const principal = await this.bearer.authenticate(request, reply);
    if (!principal) return;
    const message = messageOf(request);
    for (const name of toolsCalled(message)) {
      const scope = this.tools.scopeOf.get(name);
      if (scope && !principal.scopes.includes(scope)) return this.bearer.refuseScope(request, reply, scope);
    }
    const server = this.tools.serverFor(principal, issuerOf(request));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await asActingAgent(principal.clientId, () => transport.handleRequest(request.raw, reply.raw, message));
  }

  @Get()
  @RawBodyRoute()
  @ApiRoute({
    summary: 'No server-initiated stream: this MCP server is stateless',
    tags: ['agents'],
    access: 'public',
    responses: { 405: { description: 'Method not allowed' } },
  })
  stream(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }

  @Delete()
  @RawBodyRoute()
  @ApiRoute({
    summary: 'No sessions to end: this MCP server is stateless',
    tags: ['agents'],
    access: 'public',
    responses: { 405: { description: 'Method not allowed' } },
  })
  end(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }
}
