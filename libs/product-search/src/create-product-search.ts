import type { NatsConnection } from 'nats';
import { MockProductSearch, type CatalogImageUrl } from './mock-product-search';
import { NatsProductSearch } from './nats-product-search';
import { ProductSearch } from './product-search';

export type ProductSearchOptions =
  | { mode: 'mock'; imageUrl?: CatalogImageUrl }
  | { mode: 'scraping'; nc: NatsConnection; subjectPrefix: string; timeoutMs?: number };

/** The implementation `PRODUCT_SERVICE` names. */
export function createProductSearch(options: ProductSearchOptions): ProductSearch {
  return options.mode === 'mock' ? new MockProductSearch(options.imageUrl) : new NatsProductSearch(options);
}
