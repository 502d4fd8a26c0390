import { ProductQuery } from './product-query';
import { ProductSearchResult, ProductSummary } from './product-summary';

/**
 * Where the gateway gets products from (`PRODUCT_SERVICE`): the mock catalogue or the search
 * service's realtime scraping. Failures are ProductSearchErrors; an unknown id is null.
 */
export interface ProductSearch {
  search(query: ProductQuery): Promise<ProductSearchResult>;
  product(productId: string): Promise<ProductSummary | null>;
}
