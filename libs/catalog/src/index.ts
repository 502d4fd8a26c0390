export * from './catalog-tables';
export * from './catalog-products';
export * from './search-catalog';
export * from './catalog-image';
