export * from './bookkeeping-database';
export * from './create-database';
export * from './migrate-schema';
export * from './ensure-database';
export * from './secrets-database';
export * from './reactions-database';
