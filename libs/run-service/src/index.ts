export * from './run-service';
