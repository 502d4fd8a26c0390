import type { GatewayConfig } from '@shop/config';

/** The test page is a development client: production never serves it. */
export const servesTestPage = (config: Pick<GatewayConfig, 'NODE_ENV'>): boolean =>
  config.NODE_ENV !== 'production';

/** The test page opened at one order, whose approve button is the shopper's wallet approval. */
export const testPageOrderUrl = (gatewayOrigin: string, orderId: string): string =>
  `${gatewayOrigin}/test#order-${encodeURIComponent(orderId)}`;
