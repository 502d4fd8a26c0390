import type { Provider } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { dataEncryptionKey } from '@shop/config';
import type { GatewayConfig } from '@shop/config';
import { migrateSchema, secretsMigrations } from '@shop/db';
import type { DatabaseHandle, SecretsDatabase } from '@shop/db';
import { encryptionKeyFromHex, openDataKeyVault, WalletKeyVault } from '@shop/wallets';
import { DATA_KEYS, DATABASE, WALLET_VAULT } from './tokens';

/** The data keys of personal event fields, wrapped by DATA_ENCRYPTION_KEY in SECRETS_SCHEMA. */
export function dataKeysProvider(config: GatewayConfig): Provider {
  return {
    provide: DATA_KEYS,
    inject: [DATABASE],
    useFactory: (database: DatabaseHandle) =>
      openDataKeyVault(database.db as Kysely<unknown>, config.SECRETS_SCHEMA, dataEncryptionKey(config)),
  };
}

/** The users' wallet keys, or null when no WALLET_ENCRYPTION_KEY is configured. */
export function walletVaultProvider(config: GatewayConfig): Provider {
  return {
    provide: WALLET_VAULT,
    inject: [DATABASE],
    useFactory: async (database: DatabaseHandle) => {
      if (!config.WALLET_ENCRYPTION_KEY) return null;
      await migrateSchema(database.db as Kysely<unknown>, config.SECRETS_SCHEMA, secretsMigrations);
      const secrets = database.db.withSchema(config.SECRETS_SCHEMA) as unknown as Kysely<SecretsDatabase>;
      return new WalletKeyVault(secrets, encryptionKeyFromHex(config.WALLET_ENCRYPTION_KEY));
    },
  };
}
