import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { buildOpenApiDocument, swaggerUiAsset, swaggerUiPage } from '@shop/http';
import { errorEnvelopeSchema } from './envelope';

export const apiTags = ['search', 'payment'] as const;

const page = swaggerUiPage({
  title: 'Search and payment service API',
  documentUrl: '/api-docs-json',
  assetsPath: '/api-docs',
});

/** /api-docs-json (OpenAPI 3.1 from the routes' own schemas) and /api-docs, served from this process. */
@Controller()
export class DocsController {
  private document: Record<string, unknown> | null = null;

  @Get('api-docs-json')
  openapi(): Record<string, unknown> {
    this.document ??= buildOpenApiDocument({
      title: 'Product search and payment verification service',
      version: '1.0.0',
      description:
        'Realtime marketplace search through the scraping platform, and verification of on-chain payments with deposit confirmation to the backend. Every response is the envelope {data, status, code, message}.',
      includeTag: (tag) => (apiTags as readonly string[]).includes(tag),
      errorSchema: errorEnvelopeSchema,
    });
    return this.document;
  }

  @Get('api-docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return page;
  }

  @Get('api-docs/:asset')
  asset(@Param('asset') name: string, @Res() reply: FastifyReply): void {
    const asset = swaggerUiAsset(name);
    if (!asset) throw new NotFoundException(`No such asset: ${name}`);
    reply
      .header('content-type', asset.contentType)
      .header('cache-control', 'public, max-age=86400')
      .send(asset.body);
  }
}
