import { createHash } from 'node:crypto';
import type { LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';
import { readConversation } from './conversation';
import { usageOf, type OutputIds } from './model-output';
import { planStep, type Step } from './planner';

/** The offline planner's answer to one model call, before it is encoded for a wire. */
export interface OfflineAnswer {
  step: Step;
  ids: OutputIds;
  usage: LanguageModelV3Usage;
}

/**
 * The offline model's whole decision, pure: the in-process model encodes it as LanguageModelV3 parts and
 * the OpenAI-compatible stand-in (infra/sandbox/model) as Chat Completions chunks, so both answer alike.
 * `offeredTools` are the tool names the caller offered on this call.
 */
export function planOfflineAnswer(
  prompt: LanguageModelV3Prompt,
  offeredTools: Iterable<string>,
): OfflineAnswer {
  const serializedPrompt = JSON.stringify(prompt);
  const digest = createHash('sha256').update(serializedPrompt).digest('hex').slice(0, 24);
  const step = planStep(readConversation(prompt), new Set(offeredTools));
  return {
    step,
    ids: { text: `txt_${digest}`, toolCall: (index) => `call_${digest}_${index}` },
    usage: usageOf(step, serializedPrompt.length),
  };
}
