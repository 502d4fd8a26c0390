import { ColumnType, Generated, Migration } from 'kysely';
import * as walletKeys from './migrations/0101-wallet-keys';
import * as dataKeys from './migrations/0102-data-keys';

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

/**
 * The data key of one subject of personal data (`user:<id>`, `session:<id>`), wrapped under the
 * master key. Destroying it nulls the key and keeps the row, so the subject stays erased: a
 * destroyed id is never given a new key.
 */
export interface DataKeysTable {
  key_id: string;
  ciphertext: Buffer | null;
  iv: Buffer | null;
  auth_tag: Buffer | null;
  created_at: Generated<Date>;
  destroyed_at: Date | null;
}

export interface SecretsDatabase {
  wallet_keys: WalletKeysTable;
  data_keys: DataKeysTable;
}

export const secretsMigrations: Record<string, Migration> = {
  '0101-wallet-keys': walletKeys,
  '0102-data-keys': dataKeys,
};
