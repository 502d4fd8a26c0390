import { describe, expect, it } from 'vitest';
import { createChatModel, OFFLINE_CHAT_MODEL, OfflineChatModel } from '@shop/assistant';
import { gatewayEnv, loadConfig, OFFLINE_CHAT_MODEL_NAME } from '@shop/config';

const production = {
  NODE_ENV: 'production',
  WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
  DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
  PROVIDER_JWT_ISSUER: 'https://provider.example',
  PROVIDER_JWT_AUDIENCE: 'shop',
  NATS_CREDS: '/run/secrets/gateway.creds',
  PRODUCT_SERVICE: 'scraping',
};

describe('the chat model a production gateway runs', () => {
  it('is the offline one only when the configuration names it as the model factory reads the name', () => {
    expect(OFFLINE_CHAT_MODEL_NAME).toBe(OFFLINE_CHAT_MODEL);
    const named = loadConfig(gatewayEnv, { ...production, CHAT_MODEL: 'offline' });
    expect(createChatModel(named)).toBeInstanceOf(OfflineChatModel);
    const hosted = loadConfig(gatewayEnv, { ...production, OPENAI_API_KEY: 'sk-live' });
    expect(createChatModel(hosted)).not.toBeInstanceOf(OfflineChatModel);
    expect(() => loadConfig(gatewayEnv, production)).toThrow(/OPENAI_API_KEY: required in production/);
  });
});
