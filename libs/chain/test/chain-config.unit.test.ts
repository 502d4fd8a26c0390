import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { toBase64, toHex } from '@mysten/sui/utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeRelayerSecretKey } from '@shop/chain';
import { chainEnvFields, loadConfig, relayerPrivateKey } from '@shop/config';

const schema = z.object(chainEnvFields);
const key = Ed25519Keypair.generate().getSecretKey();
const valid = {
  CHAIN_RPC_URL: 'http://127.0.0.1:4030',
  CHAIN_CONTRACT_ADDRESS: '0xABC',
  CHAIN_CART_REGISTRY_ID: `0x${'d'.repeat(64)}`,
  CHAIN_RELAYER_PRIVATE_KEY: key,
  CHAIN_COIN_TYPE: '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC',
  CHAIN_PAYMENT_PACKAGE_ID: '0x7',
};

describe('chain configuration fields (@shop/config)', () => {
  it('accepts a complete chain environment and normalizes ids', () => {
    const config = loadConfig(schema, valid);
    expect(config.CHAIN_NETWORK).toBe('testnet');
    expect(config.CHAIN_CONTRACT_ADDRESS).toBe(`0x${'0'.repeat(61)}abc`);
    expect(config.CHAIN_PAYMENT_PACKAGE_ID).toBe(`0x${'0'.repeat(63)}7`);
    expect(config.CHAIN_RELAYER_PRIVATE_KEY).toBe(key);
  });

  it('reports every bad variable at once, without echoing the key', () => {
    const error = (() => {
      try {
        loadConfig(schema, {
          ...valid,
          CHAIN_NETWORK: 'moonnet',
          CHAIN_CONTRACT_ADDRESS: 'abc',
          CHAIN_RELAYER_PRIVATE_KEY: 'suiprivkey1notreally',
          CHAIN_COIN_TYPE: 'USDC',
        });
      } catch (e) {
        return e as Error & { problems: string[] };
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'CHAIN_COIN_TYPE',
      'CHAIN_CONTRACT_ADDRESS',
      'CHAIN_NETWORK',
      'CHAIN_RELAYER_PRIVATE_KEY',
    ]);
    expect(error.message).not.toContain('suiprivkey1notreally');
  });
});

describe('CHAIN_RELAYER_PRIVATE_KEY validation agrees with the client’s key decoding', () => {
  const ed = Ed25519Keypair.generate();
  const secret = decodeSuiPrivateKey(ed.getSecretKey()).secretKey;
  const samples = [
    ed.getSecretKey(),
    Secp256k1Keypair.generate().getSecretKey(),
    toHex(secret),
    `0x${toHex(secret)}`,
    toHex(secret).slice(1),
    toBase64(secret),
    toBase64(Uint8Array.from([0, ...secret])),
    toBase64(Uint8Array.from([1, ...secret])),
    toBase64(secret.slice(4)),
    'suiprivkey1qqqq',
    '',
    'not a key',
  ];

  it.each(samples.map((sample) => [sample]))('%s', (sample) => {
    const decodes = (() => {
      try {
        decodeRelayerSecretKey(sample);
        return true;
      } catch {
        return false;
      }
    })();
    expect(relayerPrivateKey.safeParse(sample).success).toBe(decodes);
  });
});
