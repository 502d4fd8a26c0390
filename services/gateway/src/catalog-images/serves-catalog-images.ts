import type { GatewayConfig } from '@shop/config';

/** The gateway serves the mock catalogue's pictures with the mock catalogue, outside production. */
export const servesCatalogImages = (config: Pick<GatewayConfig, 'PRODUCT_SERVICE' | 'NODE_ENV'>): boolean =>
  config.PRODUCT_SERVICE === 'mock' && config.NODE_ENV !== 'production';
