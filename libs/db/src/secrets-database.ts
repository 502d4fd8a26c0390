import { ColumnType, Generated, Migration } from 'kysely';
import * as walletKeys from './migrations/0101-wallet-keys';

/**
 * Secrets never enter an event, so this schema is the one thing replay cannot rebuild:
 * it is never dropped, only migrated.
 */
export interface WalletKeysTable {
  user_id: string;
  sui_address: string;
  ciphertext: ColumnType<Buffer, Buffer, never>;
  iv: ColumnType<Buffer, Buffer, never>;
  auth_tag: ColumnType<Buffer, Buffer, never>;
  created_at: Generated<Date>;
}

export interface SecretsDatabase {
  wallet_keys: WalletKeysTable;
}

export const secretsMigrations: Record<string, Migration> = {
  '0101-wallet-keys': walletKeys,
};
