import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const swaggerUiDirectory = dirname(require.resolve('swagger-ui-dist/package.json'));

const contentTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};
const loaded = new Map<string, Buffer>();

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The interactive docs page; its script and styles come from `assetsPath` on the same server, no CDN. */
export function swaggerUiPage(options: {
  title: string;
  documentUrl: string;
  assetsPath: string;
  withCredentials?: boolean;
}): string {
  const assets = options.assetsPath.replace(/\/+$/, '');
  const config = JSON.stringify({
    url: options.documentUrl,
    dom_id: '#swagger-ui',
    withCredentials: options.withCredentials ?? false,
  });
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle(${config});</script>
</body></html>`;
}

/** One of the page's assets from swagger-ui-dist, read once; undefined for any other name. */
export function swaggerUiAsset(name: string): { body: Buffer; contentType: string } | undefined {
  const contentType = contentTypes[name];
  if (!contentType) return undefined;
  let body = loaded.get(name);
  if (!body) {
    body = readFileSync(join(swaggerUiDirectory, name));
    loaded.set(name, body);
  }
  return { body, contentType };
}
