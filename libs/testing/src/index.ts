export * from './test-environment';
export * from './service-process';
export * from './private-process';
export * from './private-nats';
export * from './private-redis';
export * from './private-postgres';
export * from './fault-proxy';
export * from './settlement';
