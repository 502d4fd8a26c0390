import type { CatalogProduct } from '@shop/catalog';

/**
 * Where the gateway serves the mock catalogue's placeholder pictures: its own address as a local
 * browser reaches it. The port is known for certain only once the server listens (it may be 0).
 */
export class CatalogImageAddress {
  private origin: string;

  constructor(
    private readonly host: string,
    port: number,
  ) {
    this.origin = this.originOf(port);
  }

  listeningOn(port: number): void {
    this.origin = this.originOf(port);
  }

  readonly urlOf = (product: CatalogProduct): string =>
    `${this.origin}/catalog/images/${product.productId}.svg`;

  private originOf(port: number): string {
    const anyAddress = this.host === '0.0.0.0' || this.host === '::' || this.host === '';
    const host = anyAddress ? '127.0.0.1' : this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${port}`;
  }
}
