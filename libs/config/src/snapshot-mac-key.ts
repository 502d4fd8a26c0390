import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dataEncryptionKey } from './data-encryption-key';
import { isProduction } from './production-rules';
import { SharedConfig } from './shared-config';

type KeySettings = Pick<
  SharedConfig,
  | 'NODE_ENV'
  | 'DATA_ENCRYPTION_KEY'
  | 'DATABASE_URL'
  | 'SECRETS_SCHEMA'
  | 'EVENT_STREAM'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_CREDS'
>;

/**
 * The key a writing service authenticates its aggregate snapshots with: HKDF-SHA256 of its own
 * NATS credential (NATS_PASSWORD with NATS_USER, or the NATS_CREDS file), salted with the data
 * encryption key. Every process holds the data key, but only this service's replicas hold its
 * credential, so a snapshot one service wrote cannot be forged by any other, nor by whoever
 * reads the NATS server's configuration. Rotating either secret makes the old snapshots fail
 * their MAC: they are ignored and the aggregates folded from the stream, then snapshotted anew.
 * Outside production, a process without a NATS credential derives it from the data key alone.
 */
export function snapshotMacKey(config: KeySettings): Buffer {
  const credential = config.NATS_CREDS
    ? readFileSync(config.NATS_CREDS)
    : config.NATS_PASSWORD
      ? Buffer.from(`${config.NATS_USER ?? ''}\n${config.NATS_PASSWORD}`)
      : null;
  if (!credential && isProduction(config))
    throw new Error(
      'NATS_PASSWORD (with NATS_USER) or NATS_CREDS is required in production: the snapshot key',
    );
  return Buffer.from(
    hkdfSync(
      'sha256',
      credential ?? Buffer.alloc(0),
      dataEncryptionKey(config),
      `shop aggregate snapshot MAC|${config.EVENT_STREAM}`,
      32,
    ),
  );
}
