import { describe, expect, it } from 'vitest';
import { catalogImageSvg, searchCatalog } from '@shop/catalog';
import { MockProductSearch } from '@shop/product-search';
import { CatalogImageAddress } from '../src/catalog-images/catalog-image-address';
import { servesCatalogImages } from '../src/catalog-images/serves-catalog-images';

const [product] = searchCatalog({ query: 'running shoes', limit: 1 }).products;

describe('the mock catalogue pictures', () => {
  it('are served by the gateway with the mock catalogue outside production only', () => {
    expect(servesCatalogImages({ PRODUCT_SERVICE: 'mock', NODE_ENV: 'development' })).toBe(true);
    expect(servesCatalogImages({ PRODUCT_SERVICE: 'mock', NODE_ENV: 'production' })).toBe(false);
    expect(servesCatalogImages({ PRODUCT_SERVICE: 'scraping', NODE_ENV: 'development' })).toBe(false);
  });

  it('point at the port the gateway listens on, reachable from a local browser', async () => {
    const address = new CatalogImageAddress('0.0.0.0', 0);
    address.listeningOn(43210);
    const { products } = await new MockProductSearch(address.urlOf).search({
      query: 'running shoes',
      limit: 1,
    });
    expect(products[0]!.image).toBe(`http://127.0.0.1:43210/catalog/images/${product!.productId}.svg`);
  });

  it('are small SVGs naming the product type and brand, with the markup of names escaped', () => {
    const svg = catalogImageSvg({ ...product!, brand: 'Alder & Ash <b>' });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain(product!.productType);
    expect(svg).toContain('Alder &#38; Ash &#60;b&#62;');
    expect(svg.length).toBeLessThan(1000);
  });
});
