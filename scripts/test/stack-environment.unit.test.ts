import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, stackEnv } from '@shop/config';
import { TESTNET_USDC } from '@shop/sandbox-sui';
import {
  composeStack,
  describeExternals,
  secretsToGenerate,
  stackPorts,
  type Env,
} from '../stack-environment';

/**
 * What an earlier offline start left in .env.local: every secret of every stand-in, and the coin
 * the Sui stand-in's payment package minted before it paid in testnet USDC.
 */
const localSecrets: Env = {
  WALLET_ENCRYPTION_KEY: 'a'.repeat(64),
  DEPOSIT_WEBHOOK_SECRET: 'local-deposit-secret',
  PROVIDER_WEBHOOK_SECRET: 'whsec_bG9jYWw=',
  CHAIN_CONTRACT_ADDRESS: `0x${'1'.repeat(64)}`,
  CHAIN_CART_REGISTRY_ID: `0x${'2'.repeat(64)}`,
  CHAIN_PAYMENT_PACKAGE_ID: `0x${'3'.repeat(64)}`,
  CHAIN_MERCHANT_ADDRESS: `0x${'4'.repeat(64)}`,
  CHAIN_RELAYER_PRIVATE_KEY: 'suiprivkey1local',
  CHAIN_COIN_TYPE: `0x${'5'.repeat(64)}::usdc::USDC`,
};

const envOf = (operator: Env, name: string) => {
  const process = composeStack(operator, localSecrets).processes.find((p) => p.name === name);
  if (!process) throw new Error(`${name} is not started`);
  return process.env;
};
const started = (operator: Env) => composeStack(operator, localSecrets).processes.map((p) => p.name);

describe('composeStack', () => {
  it('runs every stand-in offline and wires the services to them with the local secrets', () => {
    expect(started({})).toEqual([
      'provider',
      'apify',
      'sui',
      'model',
      'projector',
      'gateway',
      'search',
      'analytics',
    ]);
    expect(envOf({}, 'gateway')).toMatchObject({
      PORT: '3000',
      PROVIDER_API_URL: 'http://127.0.0.1:4010',
      PROVIDER_JWKS_URL: 'http://127.0.0.1:4010/.well-known/jwks.json',
      PROVIDER_WEBHOOK_SECRET: localSecrets.PROVIDER_WEBHOOK_SECRET,
      CHAIN_RPC_URL: 'http://127.0.0.1:4030',
      CHAIN_CONTRACT_ADDRESS: localSecrets.CHAIN_CONTRACT_ADDRESS,
      WALLET_ENCRYPTION_KEY: localSecrets.WALLET_ENCRYPTION_KEY,
    });
    expect(envOf({}, 'search')).toMatchObject({
      PORT: '3001',
      BACKEND_URL: 'http://127.0.0.1:3000',
      CHAIN_COIN_TYPE: TESTNET_USDC,
      CHAIN_NETWORK: 'localnet',
      CHAIN_MERCHANT_ADDRESS: localSecrets.CHAIN_MERCHANT_ADDRESS,
      APIFY_API_BASE_URL: 'http://127.0.0.1:4020',
      DEPOSIT_WEBHOOK_SECRET: localSecrets.DEPOSIT_WEBHOOK_SECRET,
    });
    expect(envOf({}, 'provider')).toMatchObject({
      PORT: '4010',
      PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhooks/provider',
      PROVIDER_WEBHOOK_SECRET: localSecrets.PROVIDER_WEBHOOK_SECRET,
    });
    expect(envOf({}, 'apify')).toMatchObject({ PORT: '4020', APIFY_SANDBOX_TOKEN: 'apify_sandbox_local' });
    expect(envOf({}, 'sui')).toMatchObject({
      PORT: '4030',
      CHAIN_CONTRACT_ADDRESS: localSecrets.CHAIN_CONTRACT_ADDRESS,
      CHAIN_RELAYER_PRIVATE_KEY: localSecrets.CHAIN_RELAYER_PRIVATE_KEY,
    });
  });

  it('runs its own stack in development, since the services run production rules unless told otherwise', () => {
    for (const name of started({})) expect([name, envOf({}, name).NODE_ENV]).toEqual([name, 'development']);
    expect(envOf({ NODE_ENV: 'production' }, 'gateway').NODE_ENV).toBe('production');
  });

  it('lets every variable the operator sets win, in every process', () => {
    const operator: Env = {
      PORT: '4000',
      SEARCH_PORT: '4001',
      ANALYTICS_PORT: '4002',
      METRICS_PORT: '9500',
      BACKEND_URL: 'https://gateway.example.com',
      CHAIN_COIN_TYPE: '0x2::sui::SUI',
      CHAIN_PAYMENT_AMOUNT_MIST: '5',
      PROVIDER_JWT_AUDIENCE: 'my-app',
      DEPOSIT_WEBHOOK_SECRET: 'operator-deposit-secret',
    };
    expect(envOf(operator, 'gateway')).toMatchObject({
      PORT: '4000',
      PROVIDER_JWT_AUDIENCE: 'my-app',
      DEPOSIT_WEBHOOK_SECRET: 'operator-deposit-secret',
    });
    expect(envOf(operator, 'search')).toMatchObject({
      PORT: '4001',
      BACKEND_URL: 'https://gateway.example.com',
      CHAIN_COIN_TYPE: '0x2::sui::SUI',
      CHAIN_PAYMENT_AMOUNT_MIST: '5',
      DEPOSIT_WEBHOOK_SECRET: 'operator-deposit-secret',
    });
    expect(envOf(operator, 'analytics').PORT).toBe('4002');
    expect(envOf(operator, 'projector').METRICS_PORT).toBe('9500');
    // The stand-in signs its tokens for the audience the gateway checks.
    expect(envOf(operator, 'provider')).toMatchObject({
      PORT: '4010',
      PROVIDER_JWT_AUDIENCE: 'my-app',
      PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:4000/api/webhooks/provider',
    });
    expect(secretsToGenerate(operator)).not.toHaveProperty('DEPOSIT_WEBHOOK_SECRET');
  });

  it('moves each stand-in to the port the operator gives it, and points the services there', () => {
    const operator: Env = {
      PROVIDER_SANDBOX_PORT: '5010',
      APIFY_SANDBOX_PORT: '5020',
      SUI_SANDBOX_PORT: '5030',
    };
    expect(envOf(operator, 'provider').PORT).toBe('5010');
    expect(envOf(operator, 'apify').PORT).toBe('5020');
    expect(envOf(operator, 'sui').PORT).toBe('5030');
    expect(envOf(operator, 'gateway')).toMatchObject({
      PROVIDER_API_URL: 'http://127.0.0.1:5010',
      PROVIDER_JWKS_URL: 'http://127.0.0.1:5010/.well-known/jwks.json',
      CHAIN_RPC_URL: 'http://127.0.0.1:5030',
    });
    expect(envOf(operator, 'search')).toMatchObject({
      APIFY_API_BASE_URL: 'http://127.0.0.1:5020',
      CHAIN_RPC_URL: 'http://127.0.0.1:5030',
    });
  });

  it('runs a real provider without a webhook secret: no stand-in, no local secret, no sandbox identity', () => {
    const operator: Env = {
      PROVIDER_API_URL: 'https://provider.example.com',
      PROVIDER_API_KEY: 'sk_live',
      PROVIDER_JWKS_URL: 'https://provider.example.com/.well-known/jwks.json',
    };
    expect(started(operator)).not.toContain('provider');
    const gateway = envOf(operator, 'gateway');
    expect(gateway).toMatchObject(operator);
    expect(gateway).not.toHaveProperty('PROVIDER_WEBHOOK_SECRET');
    expect(gateway).not.toHaveProperty('PROVIDER_JWT_ISSUER');
    expect(gateway).not.toHaveProperty('PROVIDER_JWT_AUDIENCE');
    expect(secretsToGenerate(operator)).not.toHaveProperty('PROVIDER_WEBHOOK_SECRET');
  });

  it('runs a real chain without a contract: no Sui stand-in, no generated ids, keys or coin', () => {
    const operator: Env = { CHAIN_RPC_URL: 'https://fullnode.testnet.sui.io:443' };
    expect(started(operator)).not.toContain('sui');
    for (const service of ['gateway', 'search']) {
      const env = envOf(operator, service);
      expect(env.CHAIN_RPC_URL).toBe('https://fullnode.testnet.sui.io:443');
      for (const name of [
        'CHAIN_CONTRACT_ADDRESS',
        'CHAIN_CART_REGISTRY_ID',
        'CHAIN_PAYMENT_PACKAGE_ID',
        'CHAIN_MERCHANT_ADDRESS',
        'CHAIN_RELAYER_PRIVATE_KEY',
        'CHAIN_COIN_TYPE',
        'CHAIN_NETWORK',
      ])
        expect(env, `${service} ${name}`).not.toHaveProperty(name);
    }
    expect(Object.keys(secretsToGenerate(operator)).filter((name) => name.startsWith('CHAIN_'))).toEqual([]);
  });

  it('takes an empty value as the operator turning a variable off, even next to a stand-in', () => {
    const operator: Env = { CHAIN_CONTRACT_ADDRESS: '', PROVIDER_WEBHOOK_SECRET: '' };
    expect(envOf(operator, 'gateway')).toMatchObject({
      CHAIN_CONTRACT_ADDRESS: '',
      PROVIDER_WEBHOOK_SECRET: '',
    });
    // A stand-in with nothing to sign webhooks with sends none, rather than refusing to start.
    expect(envOf(operator, 'provider')).not.toHaveProperty('PROVIDER_WEBHOOK_URL');
    expect(secretsToGenerate(operator)).not.toHaveProperty('CHAIN_CONTRACT_ADDRESS');
  });

  it('runs the real scraping platform when the operator gives its token', () => {
    const operator: Env = { APIFY_API_TOKEN: 'apify_live' };
    expect(started(operator)).not.toContain('apify');
    expect(envOf(operator, 'search')).toMatchObject({ APIFY_API_TOKEN: 'apify_live' });
    expect(envOf(operator, 'search')).not.toHaveProperty('APIFY_API_BASE_URL');
  });

  it("accepts testnet USDC for deposits, the frontend's coin, which the Sui stand-in pays in; the operator's coin wins", () => {
    expect(secretsToGenerate({})).not.toHaveProperty('CHAIN_COIN_TYPE');
    for (const name of ['gateway', 'search', 'sui'])
      expect([name, envOf({}, name).CHAIN_COIN_TYPE]).toEqual([name, TESTNET_USDC]);
    const operator: Env = { CHAIN_COIN_TYPE: `0x${'6'.repeat(64)}::usdc::USDC` };
    for (const name of ['gateway', 'search', 'sui'])
      expect([name, envOf(operator, name).CHAIN_COIN_TYPE]).toEqual([name, operator.CHAIN_COIN_TYPE]);
  });

  it('gives each service its own metrics port, which the operator can set', () => {
    expect(envOf({}, 'projector')).toMatchObject({ METRICS_PORT: '9464' });
    expect(envOf({}, 'gateway')).toMatchObject({ METRICS_PORT: '9465' });
    expect(envOf({}, 'search')).toMatchObject({ METRICS_PORT: '9466' });
    const operator: Env = { METRICS_PORT: '7464', GATEWAY_METRICS_PORT: '7465', SEARCH_METRICS_PORT: '7466' };
    expect(envOf(operator, 'projector')).toMatchObject({ METRICS_PORT: '7464' });
    expect(envOf(operator, 'gateway')).toMatchObject({ METRICS_PORT: '7465' });
    expect(envOf(operator, 'search')).toMatchObject({ METRICS_PORT: '7466' });
  });

  it('runs the model stand-in behind the production client unless the operator chose a model', () => {
    expect(started({})).toContain('model');
    expect(envOf({}, 'gateway')).toMatchObject({
      OPENAI_BASE_URL: 'http://127.0.0.1:4040/v1',
      OPENAI_API_KEY: 'sk-sandbox-local',
      CHAT_MODEL: 'offline-shopping-assistant',
    });
    expect(envOf({}, 'model')).toMatchObject({ PORT: '4040', MODEL_SANDBOX_API_KEY: 'sk-sandbox-local' });

    const inProcess: Env = { CHAT_MODEL: 'offline' };
    expect(started(inProcess)).not.toContain('model');
    expect(envOf(inProcess, 'gateway')).toMatchObject({ CHAT_MODEL: 'offline' });
    expect(envOf(inProcess, 'gateway')).not.toHaveProperty('OPENAI_BASE_URL');
  });

  it('says per external system whether it is the real one or a stand-in', () => {
    const { externals } = composeStack(
      { PROVIDER_API_URL: 'https://provider.example.com', OPENAI_API_KEY: 'sk-x', SUI_SANDBOX_PORT: '5030' },
      localSecrets,
    );
    expect(externals).toEqual([
      { system: 'payment provider', use: 'real', url: 'https://provider.example.com' },
      { system: 'scraping platform', use: 'stand-in', url: 'http://127.0.0.1:4020' },
      { system: 'Sui JSON-RPC node', use: 'stand-in', url: 'http://127.0.0.1:5030' },
      { system: 'chat model', use: 'real', url: 'https://api.openai.com/v1' },
      { system: 'memory service', use: 'none', url: "the stack's own memory store (MEMWAL_URL unset)" },
    ]);
    expect(describeExternals(externals)[0]).toMatch(
      /payment provider\s+real https:\/\/provider\.example\.com/,
    );
  });

  it('refuses a port variable that holds no port, naming each, before anything starts', () => {
    const bad = () =>
      composeStack({ SEARCH_PORT: 'three thousand', GATEWAY_METRICS_PORT: '70000' }, localSecrets);
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/SEARCH_PORT[\s\S]*GATEWAY_METRICS_PORT|GATEWAY_METRICS_PORT[\s\S]*SEARCH_PORT/);
  });
});

describe("npm start's own variables", () => {
  it('keep the data under .stack and leave the trace port to the collector unless set; a bad one is refused', () => {
    const unset = loadConfig(stackEnv(stackPorts()), {});
    expect(unset).toMatchObject({ dataDir: '.stack', tracesPort: undefined });
    expect(unset.ports).toMatchObject({ PORT: 3000, SEARCH_PORT: 3001, GATEWAY_METRICS_PORT: 9465 });
    expect(
      loadConfig(stackEnv(stackPorts()), { STACK_DATA_DIR: '/tmp/stack', TRACES_PORT: '9500' }),
    ).toMatchObject({ dataDir: '/tmp/stack', tracesPort: 9500 });
    expect(() => loadConfig(stackEnv(stackPorts()), { TRACES_PORT: 'nine' })).toThrow(/TRACES_PORT/);
  });
});
