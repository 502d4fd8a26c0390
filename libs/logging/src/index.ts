export * from './logger';
export * from './context-slot';
export * from './correlation';
