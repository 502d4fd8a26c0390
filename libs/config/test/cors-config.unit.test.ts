import { describe, expect, it } from 'vitest';
import { corsOrigins, SPEC_CORS_ORIGINS } from '../src/cors-config';
import { gatewayEnv } from '../src/gateway-config';
import { ConfigError, loadConfig } from '../src/load-config';

const production = {
  NODE_ENV: 'production',
  WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
  DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
  PROVIDER_JWT_ISSUER: 'https://provider.example',
  PROVIDER_JWT_AUDIENCE: 'shop',
  NATS_CREDS: '/run/secrets/gateway.creds',
  PRODUCT_SERVICE: 'scraping',
  OPENAI_API_KEY: 'sk-live',
};
const originsOf = (env: Record<string, string>) => [...corsOrigins(loadConfig(gatewayEnv, env))];

describe('the CORS origins', () => {
  it("are the spec's list, null included, outside production", () => {
    for (const NODE_ENV of ['development', 'test'])
      expect(originsOf({ NODE_ENV })).toEqual(SPEC_CORS_ORIGINS);
    expect(SPEC_CORS_ORIGINS).toContain('null');
  });

  it('are none in production unless configured, so null and localhost are refused', () => {
    expect(originsOf(production)).toEqual([]);
    // Unset NODE_ENV is production too.
    expect(originsOf({ ...production, NODE_ENV: '' })).toEqual([]);
  });

  it("are exactly the operator's list when set, null and localhost only when listed", () => {
    expect(
      originsOf({ ...production, CORS_ORIGINS: 'https://shop.example.com, https://admin.example.com' }),
    ).toEqual(['https://shop.example.com', 'https://admin.example.com']);
    expect(
      originsOf({ ...production, CORS_ORIGINS: 'https://shop.example.com,null,http://localhost:5173' }),
    ).toEqual(['https://shop.example.com', 'null', 'http://localhost:5173']);
    expect(originsOf({ NODE_ENV: 'development', CORS_ORIGINS: 'https://shop.example.com' })).toEqual([
      'https://shop.example.com',
    ]);
  });

  it('refuses anything that is not an origin as browsers send it', () => {
    for (const value of [
      'https://shop.example.com/',
      'https://shop.example.com/app',
      '*',
      'shop.example.com',
      'HTTPS://Shop.example.com',
    ]) {
      expect(() => loadConfig(gatewayEnv, { NODE_ENV: 'test', CORS_ORIGINS: value })).toThrow(ConfigError);
    }
  });
});
