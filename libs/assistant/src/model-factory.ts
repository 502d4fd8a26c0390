import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ChatModelSettings } from './chat-model-settings';
import { OfflineChatModel } from './offline-model';

export const DEFAULT_CHAT_MODEL = 'gpt-4o-mini';
/** The CHAT_MODEL value that selects the in-process offline model whatever else is configured. */
export const OFFLINE_CHAT_MODEL = 'offline';

/**
 * The chat model for the configuration: the hosted model at any OpenAI-compatible URL when a key is set,
 * otherwise (or with CHAT_MODEL=offline) the in-process offline model, so the stack runs and its tests
 * pass without network or secrets.
 * `.chat()` selects the Chat Completions API, which OpenAI-compatible servers implement, rather than
 * OpenAI's own Responses API.
 */
export function createChatModel(config: ChatModelSettings): LanguageModelV3 {
  if (!config.OPENAI_API_KEY || config.CHAT_MODEL === OFFLINE_CHAT_MODEL) return new OfflineChatModel();
  const openai = createOpenAI({
    apiKey: config.OPENAI_API_KEY,
    ...(config.OPENAI_BASE_URL !== undefined && { baseURL: config.OPENAI_BASE_URL }),
  });
  return openai.chat(config.CHAT_MODEL ?? DEFAULT_CHAT_MODEL);
}
