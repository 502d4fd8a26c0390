import type { LanguageModelV3 } from '@ai-sdk/provider';

/**
 * What an embedding process (the test harness) may supply instead of the configured component.
 * Production starts with none: every component then comes from the environment.
 */
export interface GatewayOverrides {
  /** The chat agent's model, e.g. the AI SDK's MockLanguageModelV3 scripted by a test. */
  chatModel?: LanguageModelV3;
}
