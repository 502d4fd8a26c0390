export * from './test-environment';
export * from './service-process';
export * from '@shop/local-servers';
export * from './fault-proxy';
export * from './tcp-freeze-proxy';
export * from './settlement';
export * from './span-recorder';
export * from './watched-parking';
