import { createHash, createPrivateKey, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';

/** DER header of a PKCS#8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface SignedHeaders extends Record<string, string> {
  'x-public-key': string;
  'x-signature': string;
  'x-timestamp': string;
  'x-nonce': string;
  'x-account-id': string;
}

/**
 * Signs relayer requests with the account's Ed25519 delegate key, as the MemWal SDK does: the signed
 * message is `{timestamp}.{METHOD}.{path}.{sha256hex(body)}.{nonce}.{accountId}`, so neither the body,
 * the account hint nor a replayed nonce can be changed without breaking the signature.
 */
export class MemwalSigner {
  private readonly privateKey: KeyObject;
  readonly publicKeyHex: string;

  constructor(
    delegateKeyHex: string,
    private readonly accountId: string,
  ) {
    const seed = Buffer.from(delegateKeyHex.replace(/^0x/, ''), 'hex');
    if (seed.length !== 32) throw new Error('the MemWal delegate key must be 32 bytes of hex');
    this.privateKey = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.publicKeyHex = spki.subarray(spki.length - 32).toString('hex');
  }

  headers(method: string, path: string, body: string): SignedHeaders {
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const nonce = randomUUID();
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const message = `${timestamp}.${method}.${path}.${bodyHash}.${nonce}.${this.accountId}`;
    return {
      'x-public-key': this.publicKeyHex,
      'x-signature': sign(null, Buffer.from(message), this.privateKey).toString('hex'),
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-account-id': this.accountId,
    };
  }
}
