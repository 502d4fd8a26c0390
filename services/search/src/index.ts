export * from './bootstrap';
