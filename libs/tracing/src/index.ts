export * from './trace-process';
export * from './bus-context';
export * from './spans';
export * from './messaging-spans';
export * from './trace-collector';
export * from './shared-context-manager';
