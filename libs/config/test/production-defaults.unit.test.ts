import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { analyticsEnv } from '../src/analytics-config';
import { chainIndexerEnv } from '../src/chain-indexer-config';
import { gatewayEnv } from '../src/gateway-config';
import { ConfigError, loadConfig } from '../src/load-config';
import { projectorEnv } from '../src/projector-config';
import { searchEnv } from '../src/search-config';

const problemsOf = (schema: z.ZodType, env: Record<string, string>) => {
  try {
    loadConfig(schema, env);
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
};

const indexerBasics = { CHAIN_RPC_URL: 'http://127.0.0.1:9000', CHAIN_CONTRACT_ADDRESS: '0x2' };

const services: Array<[string, z.ZodType, Record<string, string>]> = [
  ['gateway', gatewayEnv, {}],
  ['projector', projectorEnv, {}],
  ['search', searchEnv, {}],
  ['analytics', analyticsEnv, {}],
  ['chain-indexer', chainIndexerEnv, indexerBasics],
];

const natsCredential = 'NATS_USER: required in production (with NATS_PASSWORD), or NATS_CREDS';

const productionKeys = {
  DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
  NATS_USER: 'service',
  NATS_PASSWORD: 'a password of the service',
};

describe('production is the default', () => {
  it.each(services)('runs the %s under production rules when NODE_ENV is unset', (_, schema, basics) => {
    expect(problemsOf(schema, basics)).toEqual(
      expect.arrayContaining(['DATA_ENCRYPTION_KEY: required in production', natsCredential]),
    );
    const gatewayKeys = {
      WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
      PROVIDER_JWT_ISSUER: 'https://provider.example',
      PROVIDER_JWT_AUDIENCE: 'shop',
      PRODUCT_SERVICE: 'scraping',
      OPENAI_API_KEY: 'sk-live',
    };
    const config = loadConfig(schema, { ...basics, ...productionKeys, ...gatewayKeys }) as {
      NODE_ENV: string;
    };
    expect(config.NODE_ENV).toBe('production');
  });

  it.each(services)('relaxes the %s only for NODE_ENV=development or test', (_, schema, basics) => {
    for (const NODE_ENV of ['development', 'test'])
      expect(problemsOf(schema, { ...basics, NODE_ENV })).toEqual([]);
    expect(problemsOf(schema, { ...basics, NODE_ENV: 'staging' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^NODE_ENV: /), natsCredential]),
    );
  });

  it('names every missing key of the gateway in one message, with any other bad variable', () => {
    expect(problemsOf(gatewayEnv, { PORT: 'eighty' })).toEqual([
      expect.stringMatching(/^PORT: /),
      'WALLET_ENCRYPTION_KEY: required in production',
      'PROVIDER_JWT_ISSUER: required in production',
      'PROVIDER_JWT_AUDIENCE: required in production',
      'DATA_ENCRYPTION_KEY: required in production',
      natsCredential,
      'PRODUCT_SERVICE: required in production: scraping, or mock to run the mock catalogue by name',
      'OPENAI_API_KEY: required in production, or CHAT_MODEL=offline to run the offline model by name',
    ]);
  });

  it('takes a credentials file or a user with a password as the NATS credential, not a user alone', () => {
    const keys = { DATA_ENCRYPTION_KEY: 'cd'.repeat(32) };
    expect(problemsOf(projectorEnv, { ...keys, NATS_CREDS: '/run/secrets/projector.creds' })).toEqual([]);
    expect(problemsOf(projectorEnv, { ...keys, NATS_USER: 'projector', NATS_PASSWORD: 'secret' })).toEqual(
      [],
    );
    expect(problemsOf(projectorEnv, { ...keys, NATS_USER: 'projector' })).toEqual([natsCredential]);
  });
});
