import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { fromBase64, fromHex } from '@mysten/sui/utils';

const SECRET_KEY_BYTES = 32;
const ED25519_FLAG = 0x00;
const HEX_SECRET = /^(0x)?[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Accepts the three ways a relayer key is handed around: the `suiprivkey1…` bech32 string the
 * Sui CLI exports, 32 raw bytes as hex, or base64 of either the 32 bytes or the keystore's
 * `flag ‖ bytes` form. Error messages never echo the input: it is a secret.
 */
export function decodeRelayerSecretKey(text: string): Uint8Array {
  const value = text.trim();
  if (value.startsWith('suiprivkey')) {
    let parsed: ReturnType<typeof decodeSuiPrivateKey>;
    try {
      parsed = decodeSuiPrivateKey(value);
    } catch {
      throw new TypeError('relayer key: malformed suiprivkey string');
    }
    if (parsed.schema !== 'ED25519') {
      throw new TypeError(`relayer key: expected an ED25519 key, got ${parsed.schema}`);
    }
    return parsed.secretKey;
  }
  if (HEX_SECRET.test(value)) return fromHex(value);
  if (BASE64.test(value) && value.length % 4 === 0) {
    const bytes = fromBase64(value);
    if (bytes.length === SECRET_KEY_BYTES) return bytes;
    if (bytes.length === SECRET_KEY_BYTES + 1 && bytes[0] === ED25519_FLAG) return bytes.slice(1);
  }
  throw new TypeError(
    'relayer key: expected suiprivkey1…, 32 bytes of hex, or base64 of a 32-byte ED25519 secret',
  );
}

export function relayerKeypair(text: string): Ed25519Keypair {
  return Ed25519Keypair.fromSecretKey(decodeRelayerSecretKey(text));
}
