import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface Sealed {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
}

/**
 * AES-256-GCM with a fresh 96-bit IV per secret; the tag makes tampering detectable. A caller
 * sealing many secrets at once may draw their IVs together, each used once.
 */
export function seal(key: Buffer, plaintext: string, associatedData: string, iv = randomBytes(12)): Sealed {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag() };
}

export function open(key: Buffer, sealed: Sealed, associatedData: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(sealed.authTag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
}

export function encryptionKeyFromHex(hex: string): Buffer {
  const key = Buffer.from(hex.replace(/^0x/, ''), 'hex');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}
