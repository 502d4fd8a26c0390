import { Controller, Get, Header, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { GatewayConfig } from '@shop/config';
import { buildOpenApiDocument, swaggerUiAsset, swaggerUiPage } from '@shop/http';
import { CONFIG } from '../infrastructure/tokens';
import { errorEnvelopeSchema } from './error-envelope';

/** /doc and /swagger, served from this process: no CDN. */
@Controller()
export class DocsController {
  private document: Record<string, unknown> | null = null;
  private readonly page = swaggerUiPage({
    title: 'Shopping assistant API',
    documentUrl: '/doc',
    assetsPath: '/swagger',
    withCredentials: true,
  });

  constructor(@Inject(CONFIG) private readonly config: GatewayConfig) {}

  @Get('doc')
  openapi(): Record<string, unknown> {
    this.document ??= buildOpenApiDocument({
      title: 'Shopping assistant backend API',
      version: '1.0.0',
      description:
        'REST gateway: sessions, onboarding, chat, sessions, cart, checkout, orders, deposits, webhooks; the MCP server for outside agents and the OAuth endpoints that admit them (tag agents).',
      includeTag: (tag) => tag !== 'dev' || this.config.NODE_ENV !== 'production',
      errorSchema: errorEnvelopeSchema,
      securitySchemes: { sessionCookie: { type: 'apiKey', in: 'cookie', name: 'provider-jwt' } },
    });
    return this.document;
  }

  @Get('swagger')
  @Header('content-type', 'text/html; charset=utf-8')
  swagger(): string {
    return this.page;
  }

  @Get('swagger/:asset')
  asset(@Param('asset') name: string, @Res() reply: FastifyReply): void {
    const asset = swaggerUiAsset(name);
    if (!asset) throw new NotFoundException();
    reply
      .header('content-type', asset.contentType)
      .header('cache-control', 'public, max-age=86400')
      .send(asset.body);
  }
}
