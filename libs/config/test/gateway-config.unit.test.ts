import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/load-config';
import { gatewayEnv } from '../src/gateway-config';
import { orderApprovalUrlOf } from '../src/order-approval-config';

/** Outside production unless a case says otherwise: production needs keys these cases are not about. */
const development = { NODE_ENV: 'development' };

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(gatewayEnv, { ...development, ...env });
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
};

describe('gateway configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig(gatewayEnv, development);
    expect(config).toMatchObject({
      PORT: 3000,
      RATE_LIMIT_RPM: 30,
      PRODUCT_SERVICE: 'mock',
      CART_SERVICE: 'db',
    });
  });

  it('bounds the chat model budget well inside the idle timeout', () => {
    expect(loadConfig(gatewayEnv, development).CHAT_MODEL_TIMEOUT_MS).toBe(30_000);
    expect(
      loadConfig(gatewayEnv, { ...development, CHAT_MODEL_TIMEOUT_MS: '1500' }).CHAT_MODEL_TIMEOUT_MS,
    ).toBe(1500);
    expect(problemsOf({ CHAT_MODEL_TIMEOUT_MS: '120000' })).toEqual([
      expect.stringMatching(/^CHAT_MODEL_TIMEOUT_MS: /),
    ]);
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

  it('requires the wallet and data encryption keys, and the provider token issuer and audience, in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'WALLET_ENCRYPTION_KEY: required in production',
      'PROVIDER_JWT_ISSUER: required in production',
      'PROVIDER_JWT_AUDIENCE: required in production',
      'DATA_ENCRYPTION_KEY: required in production',
      'NATS_USER: required in production (with NATS_PASSWORD), or NATS_CREDS',
      'PRODUCT_SERVICE: required in production: scraping, or mock to run the mock catalogue by name',
      'OPENAI_API_KEY: required in production, or CHAT_MODEL=offline to run the offline model by name',
    ]);
    expect(
      problemsOf({
        NODE_ENV: 'production',
        PRODUCT_SERVICE: 'scraping',
        OPENAI_API_KEY: 'sk-live',
        WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
        DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
        PROVIDER_JWKS_URL: 'https://provider.example/.well-known/jwks.json',
        PROVIDER_JWT_ISSUER: 'https://provider.example',
        NATS_CREDS: '/run/secrets/gateway.creds',
      }),
    ).toEqual(['PROVIDER_JWT_AUDIENCE: required in production']);
  });

  it('keeps issuer and audience optional outside production', () => {
    for (const NODE_ENV of ['development', 'test']) {
      expect(
        problemsOf({ NODE_ENV, PROVIDER_JWKS_URL: 'http://127.0.0.1:4010/.well-known/jwks.json' }),
      ).toEqual([]);
    }
  });

  describe('the stand-ins in production', () => {
    const production = {
      NODE_ENV: 'production',
      WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
      DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
      PROVIDER_JWT_ISSUER: 'https://provider.example',
      PROVIDER_JWT_AUDIENCE: 'shop',
      NATS_CREDS: '/run/secrets/gateway.creds',
    };
    const catalogue =
      'PRODUCT_SERVICE: required in production: scraping, or mock to run the mock catalogue by name';
    const model =
      'OPENAI_API_KEY: required in production, or CHAT_MODEL=offline to run the offline model by name';

    it('refuses to start with the mock catalogue or the offline model when their settings are missing, naming each', () => {
      expect(problemsOf(production)).toEqual([catalogue, model]);
      // Unset NODE_ENV is production too.
      expect(problemsOf({ ...production, NODE_ENV: '' })).toEqual([catalogue, model]);
      // Another model named without a key would still fall back to the offline one.
      expect(problemsOf({ ...production, PRODUCT_SERVICE: 'scraping', CHAT_MODEL: 'gpt-4o-mini' })).toEqual([
        model,
      ]);
      expect(problemsOf({ ...production, OPENAI_API_KEY: 'sk-live', OPENAI_BASE_URL: '' })).toEqual([
        catalogue,
      ]);
    });

    it('runs them when the operator names them', () => {
      const config = loadConfig(gatewayEnv, {
        ...production,
        PRODUCT_SERVICE: 'mock',
        CHAT_MODEL: 'offline',
      });
      expect(config).toMatchObject({ PRODUCT_SERVICE: 'mock', CHAT_MODEL: 'offline' });
      expect(config.OPENAI_API_KEY).toBeUndefined();
      expect(
        loadConfig(gatewayEnv, { ...production, PRODUCT_SERVICE: 'scraping', OPENAI_API_KEY: 'sk-live' }),
      ).toMatchObject({ PRODUCT_SERVICE: 'scraping', OPENAI_API_KEY: 'sk-live' });
    });

    it('keeps both the defaults outside production', () => {
      for (const NODE_ENV of ['development', 'test']) {
        const config = loadConfig(gatewayEnv, { NODE_ENV });
        expect(config.PRODUCT_SERVICE).toBe('mock');
        expect(config.OPENAI_API_KEY).toBeUndefined();
      }
    });
  });

  it("names the provider browser SDK's cookies as the SDK writes them, each name meaning one cookie", () => {
    expect(loadConfig(gatewayEnv, development)).toMatchObject({
      PROVIDER_SDK_JWT_COOKIE: 'crossmint-jwt',
      PROVIDER_SDK_REFRESH_COOKIE: 'crossmint-refresh-token',
      SESSION_REFRESH_RATE_LIMIT_RPM: 20,
      TRUST_PROXY: false,
    });
    expect(
      loadConfig(gatewayEnv, {
        ...development,
        PROVIDER_SDK_JWT_COOKIE: 'sdk-jwt',
        PROVIDER_SDK_REFRESH_COOKIE: 'sdk-refresh',
        TRUST_PROXY: '10.0.0.1, 10.0.0.2',
      }),
    ).toMatchObject({
      PROVIDER_SDK_JWT_COOKIE: 'sdk-jwt',
      PROVIDER_SDK_REFRESH_COOKIE: 'sdk-refresh',
      TRUST_PROXY: '10.0.0.1, 10.0.0.2',
    });
    expect(problemsOf({ PROVIDER_SDK_JWT_COOKIE: 'provider-jwt' })).toEqual([
      'PROVIDER_SDK_JWT_COOKIE: provider-jwt is already a cookie of the API',
    ]);
    expect(problemsOf({ PROVIDER_SDK_REFRESH_COOKIE: 'crossmint-jwt' })).toEqual([
      'PROVIDER_SDK_REFRESH_COOKIE: must differ from PROVIDER_SDK_JWT_COOKIE',
    ]);
    expect(problemsOf({ PROVIDER_SDK_JWT_COOKIE: 'two words' })).toEqual([
      expect.stringMatching(/^PROVIDER_SDK_JWT_COOKIE: /),
    ]);
  });

  it('takes the order approval page as an http(s) URL template naming the order, unset when empty', () => {
    const template = 'https://shop.example.com/orders/{orderId}?approve=1';
    const config = loadConfig(gatewayEnv, { ...development, ORDER_APPROVAL_URL: ` ${template} ` });
    expect(config.ORDER_APPROVAL_URL).toBe(template);
    expect(orderApprovalUrlOf(config.ORDER_APPROVAL_URL!, 'a1/b')).toBe(
      'https://shop.example.com/orders/a1%2Fb?approve=1',
    );
    expect(loadConfig(gatewayEnv, { ...development, ORDER_APPROVAL_URL: '' }).ORDER_APPROVAL_URL).toBe(
      undefined,
    );
    expect(problemsOf({ ORDER_APPROVAL_URL: 'https://shop.example.com/orders' })).toEqual([
      'ORDER_APPROVAL_URL: must contain {orderId}',
    ]);
    for (const notHttp of [
      'javascript:alert({orderId})',
      'ftp://shop.example.com/{orderId}',
      '/orders/{orderId}',
    ])
      expect(problemsOf({ ORDER_APPROVAL_URL: notHttp })).toEqual([
        'ORDER_APPROVAL_URL: must be an http(s) URL once {orderId} is filled in',
      ]);
  });
});
