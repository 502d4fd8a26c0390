export * from './create-redis';
export * from './rate-limiter';
export * from './redis-lock';
export * from './single-flight-cache';
export * from './generation-cache';
export * from './fair-redis-lock';
