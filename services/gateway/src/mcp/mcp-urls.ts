import type { FastifyRequest } from 'fastify';

export const mcpPath = '/mcp';
export const protectedResourceMetadataPath = '/.well-known/oauth-protected-resource';
export const authorizationServerMetadataPath = '/.well-known/oauth-authorization-server';

/**
 * This gateway's own origin as the caller reached it (behind a proxy, its X-Forwarded-Proto and
 * -Host: the gateway trusts its proxy): the OAuth issuer, and the base of the MCP resource's URL.
 */
export const issuerOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** The MCP server's resource identifier (RFC 8707, RFC 9728): the audience of every agent token. */
export const mcpResourceOf = (request: FastifyRequest): string => `${issuerOf(request)}${mcpPath}`;

export const resourceMetadataUrlOf = (request: FastifyRequest): string =>
  `${issuerOf(request)}${protectedResourceMetadataPath}${mcpPath}`;
