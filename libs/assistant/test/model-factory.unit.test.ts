import { describe, expect, it } from 'vitest';
import { assistantEnv } from '@shop/config';
import { createChatModel, DEFAULT_CHAT_MODEL, OFFLINE_CHAT_MODEL, OfflineChatModel } from '../src';

describe('createChatModel', () => {
  it('uses the offline model without an API key', () => {
    const model = createChatModel({ CHAT_MODEL: 'gpt-4.1' });
    expect(model).toBeInstanceOf(OfflineChatModel);
  });

  it("uses OpenAI's chat API with a key, the default model unless one is named", () => {
    const model = createChatModel({ OPENAI_API_KEY: 'sk-test' });
    expect(model.provider).toBe('openai.chat');
    expect(model.modelId).toBe(DEFAULT_CHAT_MODEL);
    expect(model.specificationVersion).toBe('v3');
  });

  it('uses the in-process offline model when CHAT_MODEL=offline, even with a key and URL', () => {
    const model = createChatModel({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:4040/v1',
      CHAT_MODEL: OFFLINE_CHAT_MODEL,
    });
    expect(model).toBeInstanceOf(OfflineChatModel);
  });

  it('names the configured model at an OpenAI-compatible URL', () => {
    const model = createChatModel({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      CHAT_MODEL: 'llama3.1',
    });
    expect(model.provider).toBe('openai.chat');
    expect(model.modelId).toBe('llama3.1');
  });
});

describe('assistantEnv', () => {
  it('leaves everything unset by default', () => {
    expect(assistantEnv.parse({})).toEqual({});
  });

  it('reads empty variables as unset', () => {
    const config = assistantEnv.parse({ OPENAI_API_KEY: '', OPENAI_BASE_URL: ' ', CHAT_MODEL: '' });
    expect(createChatModel(config)).toBeInstanceOf(OfflineChatModel);
  });

  it('rejects a base URL that is not a URL', () => {
    const result = assistantEnv.safeParse({ OPENAI_BASE_URL: 'localhost:11434' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['OPENAI_BASE_URL']);
  });
});
