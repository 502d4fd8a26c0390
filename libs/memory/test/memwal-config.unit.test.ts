import { describe, expect, it } from 'vitest';
import { memwalEnv } from '@shop/config';
import { memwalOptionsOf } from '../src';

const KEY = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';

describe('memwalEnv', () => {
  it('leaves MemWal off by default', () => {
    const config = memwalEnv.parse({});
    expect(config).toEqual({ MEMWAL_NAMESPACE_PREFIX: 'shop-user', MEMWAL_TIMEOUT_MS: 5000 });
    expect(memwalOptionsOf(config)).toBeUndefined();
  });

  it('turns a complete configuration into client options', () => {
    const config = memwalEnv.parse({
      MEMWAL_URL: 'https://relayer.example',
      MEMWAL_DELEGATE_KEY: `0x${KEY}`,
      MEMWAL_ACCOUNT_ID: '0xabc',
      MEMWAL_TIMEOUT_MS: '8000',
    });
    expect(memwalOptionsOf(config)).toEqual({
      url: 'https://relayer.example',
      delegateKey: `0x${KEY}`,
      accountId: '0xabc',
      namespacePrefix: 'shop-user',
      timeoutMs: 8000,
    });
  });

  it('requires the key and the account once a URL is set', () => {
    const result = memwalEnv.safeParse({ MEMWAL_URL: 'https://relayer.example', MEMWAL_DELEGATE_KEY: '' });
    expect(result.error?.issues.map(({ path }) => path[0])).toEqual([
      'MEMWAL_DELEGATE_KEY',
      'MEMWAL_ACCOUNT_ID',
    ]);
  });

  it('rejects a key that is not 32 bytes of hex', () => {
    const result = memwalEnv.safeParse({ MEMWAL_DELEGATE_KEY: 'suiprivkey1qqq' });
    expect(result.error?.issues[0]?.path).toEqual(['MEMWAL_DELEGATE_KEY']);
  });
});
