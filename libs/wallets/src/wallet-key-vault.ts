import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Kysely } from 'kysely';
import { SecretsDatabase } from '@shop/db';
import { open, seal } from './aes-gcm';

/**
 * Each user's Sui keypair, encrypted at rest. The key is bound to its user id (as GCM
 * associated data), so a ciphertext moved to another row does not decrypt.
 */
export class WalletKeyVault {
  constructor(
    private readonly db: Kysely<SecretsDatabase>,
    private readonly key: Buffer,
  ) {}

  /** The user's Sui address, generating and storing the keypair the first time. */
  async suiAddressFor(userId: string): Promise<string> {
    const existing = await this.row(userId);
    if (existing) return existing.sui_address;
    const keypair = Ed25519Keypair.generate();
    const sealed = seal(this.key, keypair.getSecretKey(), userId);
    // Concurrent first calls both generate; the first insert wins and both read it back.
    await this.db
      .insertInto('wallet_keys')
      .values({
        user_id: userId,
        sui_address: keypair.toSuiAddress(),
        ciphertext: sealed.ciphertext,
        iv: sealed.iv,
        auth_tag: sealed.authTag,
      })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    return (await this.row(userId))!.sui_address;
  }

  async keypairFor(userId: string): Promise<Ed25519Keypair | null> {
    const row = await this.db
      .selectFrom('wallet_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return null;
    const secret = open(this.key, { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag }, userId);
    return Ed25519Keypair.fromSecretKey(secret);
  }

  private row(userId: string) {
    return this.db
      .selectFrom('wallet_keys')
      .select('sui_address')
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }
}
