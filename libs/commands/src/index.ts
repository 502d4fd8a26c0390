export * from './errors';
export * from './aggregate-cache';
export * from './decider-runner';
export * from './read-your-writes';
export * from './command-executor';
export * from './aggregates';
export { SnapshotRefusedError } from './snapshot-mac';
export * from './acting-agent';
