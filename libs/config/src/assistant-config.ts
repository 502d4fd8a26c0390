import { z } from 'zod';
import { unsetWhenEmpty } from './env-types';

/**
 * The chat model's variables, merged into the gateway's environment schema.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `OPENAI_API_KEY` | unset | key of an OpenAI-compatible API; unset runs the offline model (no network) |
 * | `OPENAI_BASE_URL` | OpenAI's | base URL of any OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1` |
 * | `CHAT_MODEL` | `gpt-4o-mini` | model id at that API; `offline` runs the in-process offline model |
 */
export const assistantEnv = z.object({
  OPENAI_API_KEY: unsetWhenEmpty(z.string().trim().min(1)),
  OPENAI_BASE_URL: unsetWhenEmpty(z.url({ protocol: /^https?$/ })),
  CHAT_MODEL: unsetWhenEmpty(z.string().trim().min(1).max(200)),
});

export type AssistantConfig = z.output<typeof assistantEnv>;
