export * from './aes-gcm';
export * from './wallet-key-vault';
