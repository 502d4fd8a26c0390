export * from './indexer-migrations';
export * from './chain-event-record';
export * from './chain-indexer';
export * from './start-chain-indexer';
