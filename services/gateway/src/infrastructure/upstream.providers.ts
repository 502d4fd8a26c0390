import type { Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { createChatModel } from '@shop/assistant';
import type { GatewayConfig } from '@shop/config';
import { createProductSearch } from '@shop/product-search';
import { ProviderClient } from '@shop/provider';
import { CatalogImageAddress } from '../catalog-images/catalog-image-address';
import { servesCatalogImages } from '../catalog-images/serves-catalog-images';
import { GuardedModel } from '../chat/guarded-model';
import type { GatewayOverrides } from './gateway-overrides';
import { CHAT_MODEL, NATS, PRODUCT_SEARCH, PROVIDER } from './tokens';

/** The wallet and payment provider's client, or null without PROVIDER_API_URL. */
export function providerClientProvider(config: GatewayConfig): Provider {
  return {
    provide: PROVIDER,
    useValue: config.PROVIDER_API_URL
      ? new ProviderClient({
          baseUrl: config.PROVIDER_API_URL,
          apiKey: config.PROVIDER_API_KEY ?? '',
          timeoutMs: config.PROVIDER_TIMEOUT_MS,
        })
      : null,
  };
}

/** The mock catalogue, or the scraping service over NATS (PRODUCT_SERVICE). */
export function productSearchProvider(config: GatewayConfig): Provider {
  return {
    provide: PRODUCT_SEARCH,
    inject: [NATS, CatalogImageAddress],
    useFactory: (nc: NatsConnection, images: CatalogImageAddress) =>
      config.PRODUCT_SERVICE === 'mock'
        ? // The catalogue's own image host does not exist; outside production the gateway serves them.
          createProductSearch({
            mode: 'mock',
            imageUrl: servesCatalogImages(config) ? images.urlOf : undefined,
          })
        : createProductSearch({ mode: 'scraping', nc, subjectPrefix: config.EVENT_SUBJECT_PREFIX }),
  };
}

/** The chat agent's model (a test's scripted one when given), behind its deadline and retries. */
export function chatModelProvider(config: GatewayConfig, overrides: GatewayOverrides): Provider {
  return {
    provide: CHAT_MODEL,
    useValue: new GuardedModel(overrides.chatModel ?? createChatModel(config), {
      timeoutMs: config.CHAT_MODEL_TIMEOUT_MS,
    }),
  };
}
