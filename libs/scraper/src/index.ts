export * from './search-query';
export * from './marketplace-url';
export * from './normalize-product';
export * from './text-relevance';
export * from './rank-products';
export * from './scraper-error';
export * from './apify-search-runner';
export * from './search-products';
