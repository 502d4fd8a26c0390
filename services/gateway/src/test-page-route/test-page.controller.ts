import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Controller, Get, NotFoundException, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, ValidParams } from '@shop/http';

/** The page's static files (services/gateway/test-page) sit beside src/ and dist/: both the source and the build find them. */
const pageDirectory = resolve(__dirname, '..', '..', 'test-page');

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Read once at start-up: only these files can ever be served, whatever path is asked for. */
function loadPage(): Map<string, { body: Buffer; contentType: string }> {
  return new Map(
    readdirSync(pageDirectory)
      .filter((name) => contentTypes[extname(name)] !== undefined)
      .map((name) => [
        name,
        { body: readFileSync(join(pageDirectory, name)), contentType: contentTypes[extname(name)]! },
      ]),
  );
}

const assetParams = z.object({ file: z.string().max(100) });

/** GET /test: a single-page client of the whole API (outside production only). */
@Controller('test')
export class TestPageController {
  private readonly files = loadPage();

  @Get()
  @ApiRoute({
    summary: 'Test page: a browser client of the whole flow (not in production)',
    tags: ['dev'],
    access: 'public',
    responses: { 200: { description: 'The page', contentType: 'text/html' } },
  })
  page(@Res() reply: FastifyReply): void {
    this.send(reply, 'index.html');
  }

  @Get(':file')
  @ApiRoute({
    summary: "The test page's scripts and styles (not in production)",
    tags: ['dev'],
    access: 'public',
    params: assetParams,
    responses: { 200: { description: 'The file' } },
    errors: [{ status: 404, code: 'NOT_FOUND', description: 'not a file of the page' }],
  })
  asset(@ValidParams() params: z.infer<typeof assetParams>, @Res() reply: FastifyReply): void {
    this.send(reply, params.file);
  }

  private send(reply: FastifyReply, name: string): void {
    const file = this.files.get(name);
    if (!file) throw new NotFoundException();
    reply.header('content-type', file.contentType).header('cache-control', 'no-cache').send(file.body);
  }
}
