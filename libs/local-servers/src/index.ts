export * from './private-process';
export * from './private-nats';
export * from './private-postgres';
export * from './private-redis';
