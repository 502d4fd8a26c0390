export * from './api-route';
export * from './api-schema';
export * from './validated';
export * from './openapi-document';
export * from './describe-zod-error';
export * from './swagger-ui';
export * from './request-context';
export * from './close-connections';
