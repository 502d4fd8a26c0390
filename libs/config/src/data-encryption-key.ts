import { createHash } from 'node:crypto';
import { SharedConfig } from './shared-config';

type KeySettings = Pick<SharedConfig, 'NODE_ENV' | 'DATA_ENCRYPTION_KEY' | 'DATABASE_URL' | 'SECRETS_SCHEMA'>;

/**
 * The master key of the data keys. Outside production an unset key is derived from where the
 * data keys live, so every process of one local stack (gateway, projector, replay, tests)
 * arrives at the same key without anyone generating and sharing one.
 */
export function dataEncryptionKey(config: KeySettings): Buffer {
  if (config.DATA_ENCRYPTION_KEY) return Buffer.from(config.DATA_ENCRYPTION_KEY.replace(/^0x/, ''), 'hex');
  if (config.NODE_ENV === 'production') throw new Error('DATA_ENCRYPTION_KEY is required in production');
  return createHash('sha256')
    .update(`shop development data key|${config.DATABASE_URL}|${config.SECRETS_SCHEMA}`)
    .digest();
}
