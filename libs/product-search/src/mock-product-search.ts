import { CatalogProduct, getCatalogProduct, searchCatalog } from '@shop/catalog';
import { parseProductId, parseProductQuery } from './parse-request';
import { ProductQuery } from './product-query';
import { ProductSearch } from './product-search';
import { ProductSearchResult, ProductSummary } from './product-summary';

/** Where a catalogue product's picture is served; the catalogue's own address by default. */
export type CatalogImageUrl = (product: CatalogProduct) => string;

const catalogueAddress: CatalogImageUrl = (product) => product.imageUrl;

export function catalogProductSummary(
  product: CatalogProduct,
  imageUrl: CatalogImageUrl = catalogueAddress,
): ProductSummary {
  return {
    productId: product.productId,
    productName: product.name,
    price: product.priceCents,
    image: imageUrl(product),
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
  constructor(private readonly imageUrl: CatalogImageUrl = catalogueAddress) {}

  async search(query: ProductQuery): Promise<ProductSearchResult> {
    const result = searchCatalog(parseProductQuery(query));
    return {
      ...result,
      products: result.products.map((product) => catalogProductSummary(product, this.imageUrl)),
    };
  }

  async product(productId: string): Promise<ProductSummary | null> {
    const product = getCatalogProduct(parseProductId(productId));
    return product ? catalogProductSummary(product, this.imageUrl) : null;
  }
}
