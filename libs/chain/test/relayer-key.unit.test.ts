import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { toBase64, toHex } from '@mysten/sui/utils';
import { describe, expect, it } from 'vitest';
import { decodeRelayerSecretKey, relayerKeypair } from '@shop/chain';

describe('relayer key parsing', () => {
  const keypair = Ed25519Keypair.generate();
  const bech32 = keypair.getSecretKey();
  const secret = decodeSuiPrivateKey(bech32).secretKey;
  const address = keypair.toSuiAddress();

  it.each([
    ['suiprivkey bech32', bech32],
    ['hex', toHex(secret)],
    ['0x-hex', `0x${toHex(secret)}`],
    ['base64 of 32 bytes', toBase64(secret)],
    ['base64 of flag ‖ 32 bytes (keystore)', toBase64(Uint8Array.from([0, ...secret]))],
  ])('accepts %s', (_, text) => {
    expect(decodeRelayerSecretKey(text)).toEqual(secret);
    expect(relayerKeypair(` ${text}\n`).toSuiAddress()).toBe(address);
  });

  it('refuses other schemes and malformed keys without echoing them', () => {
    const secp = Secp256k1Keypair.generate().getSecretKey();
    expect(() => decodeRelayerSecretKey(secp)).toThrow(/expected an ED25519 key/);
    for (const bad of [
      '',
      'suiprivkey1qqqq',
      toHex(secret).slice(2),
      toBase64(secret.slice(1)),
      'not a key',
    ]) {
      let message = '';
      try {
        decodeRelayerSecretKey(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^relayer key:/);
      if (bad) expect(message).not.toContain(bad);
    }
  });
});
