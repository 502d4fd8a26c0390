export * from './database';
export * from './create-database';
export * from './read-model-migrations';
export * from './ensure-database';
export * from './secrets-database';
export * from './reactions-database';
