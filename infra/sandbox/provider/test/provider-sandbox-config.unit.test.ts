import { ConfigError, loadConfig, providerSandboxEnv } from '@shop/config';
import { describe, expect, it } from 'vitest';

describe('provider sandbox configuration', () => {
  it('starts on loopback port 4010 with working defaults and no webhook target', () => {
    expect(loadConfig(providerSandboxEnv, {})).toEqual({
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: 4010,
      PROVIDER_API_KEY: 'sk_sandbox_local',
      PROVIDER_JWT_ISSUER: 'provider-sandbox',
      PROVIDER_JWT_AUDIENCE: 'provider-sandbox',
      PROVIDER_WEBHOOK_RETRY_DELAYS_MS: [5_000, 300_000, 1_800_000],
      PROVIDER_SANDBOX_STAGE_DELAY_MS: 2_000,
    });
  });

  it('reads the webhook target and the retry schedule', () => {
    const config = loadConfig(providerSandboxEnv, {
      PORT: '4999',
      PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhooks/provider',
      PROVIDER_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      PROVIDER_WEBHOOK_RETRY_DELAYS_MS: '100,2000',
    });

    expect(config).toMatchObject({
      PORT: 4999,
      PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhooks/provider',
      PROVIDER_WEBHOOK_RETRY_DELAYS_MS: [100, 2000],
    });
  });

  it('refuses a webhook URL without a secret, and a secret that is not base64', () => {
    expect(() =>
      loadConfig(providerSandboxEnv, { PROVIDER_WEBHOOK_URL: 'http://127.0.0.1:3000/hook' }),
    ).toThrow(/PROVIDER_WEBHOOK_SECRET: required when PROVIDER_WEBHOOK_URL is set/);
    const error = (() => {
      try {
        loadConfig(providerSandboxEnv, { PROVIDER_WEBHOOK_SECRET: 'whsec_not base64!', PORT: 'not-a-port' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(/^PORT:/),
      expect.stringMatching(/^PROVIDER_WEBHOOK_SECRET: must be whsec_<base64>/),
    ]);
  });
});
