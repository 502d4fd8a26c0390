import { Controller, Get, NotFoundException, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { catalogImageSvg, getCatalogProduct } from '@shop/catalog';
import { ApiRoute, ValidParams } from '@shop/http';

const imageParams = z.object({ file: z.string().max(100) });
const IMAGE_FILE = /^([A-Z0-9]{10})\.svg$/;

/** GET /catalog/images/<productId>.svg: the mock catalogue's pictures (mock mode, outside production). */
@Controller('catalog/images')
export class CatalogImagesController {
  @Get(':file')
  @ApiRoute({
    summary: "A mock catalogue product's placeholder picture (PRODUCT_SERVICE=mock, not in production)",
    tags: ['dev'],
    access: 'public',
    params: imageParams,
    responses: { 200: { description: 'The picture', contentType: 'image/svg+xml' } },
    errors: [{ status: 404, code: 'NOT_FOUND', description: 'no catalogue product has this id' }],
  })
  image(@ValidParams() { file }: z.infer<typeof imageParams>, @Res() reply: FastifyReply): void {
    const productId = IMAGE_FILE.exec(file)?.[1];
    const product = productId ? getCatalogProduct(productId) : undefined;
    if (!product) throw new NotFoundException();
    reply
      .header('content-type', 'image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send(catalogImageSvg(product));
  }
}
