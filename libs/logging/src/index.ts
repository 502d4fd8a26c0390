export * from './logger';
export * from './correlation';
