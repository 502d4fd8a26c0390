export * from './aes-gcm';
export * from './wallet-key-vault';
export * from './data-key-vault';
export * from './lru-map';
export * from './account-erasure';
