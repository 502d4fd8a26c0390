import { CatalogProduct, getCatalogProduct, searchCatalog } from '@shop/catalog';
import { parseProductId, parseProductQuery } from './parse-request';
import { ProductQuery } from './product-query';
import { ProductSearch } from './product-search';
import { ProductSearchResult, ProductSummary } from './product-summary';

export function catalogProductSummary(product: CatalogProduct): ProductSummary {
  return {
    productId: product.productId,
    productName: product.name,
    price: product.priceCents,
    image: product.imageUrl,
    productUrl: product.productUrl,
    retailer: product.retailer,
    brand: product.brand,
    category: product.category,
    rating: product.rating,
    reviewCount: product.reviewCount,
    sizes: [...product.sizes],
    colors: [...product.colors],
  };
}

/** The deterministic mock catalogue (`PRODUCT_SERVICE=mock`): same question, same answer, no I/O. */
export class MockProductSearch implements ProductSearch {
  async search(query: ProductQuery): Promise<ProductSearchResult> {
    const result = searchCatalog(parseProductQuery(query));
    return { ...result, products: result.products.map(catalogProductSummary) };
  }

  async product(productId: string): Promise<ProductSummary | null> {
    const product = getCatalogProduct(parseProductId(productId));
    return product ? catalogProductSummary(product) : null;
  }
}
