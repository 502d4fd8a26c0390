export * from './memory';
export * from './rank-memories';
export * from './memwal-error';
export * from './memwal-memory-store';
export * from './memwal-config';
