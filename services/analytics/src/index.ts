export * from './schema/analytics-database';
export * from './schema/analytics-migrations';
export * from './analytics-projections';
export * from './report/analytics-report';
export * from './report/html-report';
export * from './report/text-report';
export * from './analytics-service';
