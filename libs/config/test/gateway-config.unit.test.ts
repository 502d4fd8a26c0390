import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/load-config';
import { gatewayEnv } from '../src/gateway-config';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(gatewayEnv, env);
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
};

describe('gateway configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig(gatewayEnv, {});
    expect(config).toMatchObject({
      PORT: 3000,
      RATE_LIMIT_RPM: 30,
      PRODUCT_SERVICE: 'mock',
      CART_SERVICE: 'db',
    });
  });

  it('names every missing on-chain variable in one message when CART_SERVICE=onchain', () => {
    expect(problemsOf({ CART_SERVICE: 'onchain' })).toEqual([
      'CHAIN_CONTRACT_ADDRESS: required when CART_SERVICE=onchain',
      'CHAIN_CART_REGISTRY_ID: required when CART_SERVICE=onchain',
      'CHAIN_RELAYER_PRIVATE_KEY: required when CART_SERVICE=onchain',
      'CHAIN_RPC_URL: required when CART_SERVICE=onchain',
    ]);
  });

  it('refuses malformed on-chain variables, and reports them together with other bad variables', () => {
    const problems = problemsOf({
      CART_SERVICE: 'onchain',
      PORT: 'eighty',
      CHAIN_CONTRACT_ADDRESS: 'not-an-address',
      CHAIN_CART_REGISTRY_ID: '0x2',
      CHAIN_RELAYER_PRIVATE_KEY: 'hunter2',
      CHAIN_RPC_URL: 'http://127.0.0.1:9000',
      WALLET_ENCRYPTION_KEY: 'short',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
      ['CHAIN_CONTRACT_ADDRESS', 'CHAIN_RELAYER_PRIVATE_KEY', 'PORT', 'WALLET_ENCRYPTION_KEY'].sort(),
    );
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('requires the wallet and data encryption keys in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'WALLET_ENCRYPTION_KEY: required in production',
      'DATA_ENCRYPTION_KEY: required in production',
    ]);
  });
});
