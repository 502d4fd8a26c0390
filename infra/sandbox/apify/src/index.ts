export * from './server';
export * from './listing-items';
export type { FailedStatus, RunInput, RunRecord, NextRun } from './runs';
