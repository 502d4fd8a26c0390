export { DEFAULT_MODEL_SANDBOX_KEY, startModelSandbox } from './server';
export type { ModelSandbox, ModelSandboxOptions, RecordedCompletion } from './server';
export { modelFaultModes } from './faults';
export type { ModelFault, ModelFaultMode, ModelFaultOptions } from './faults';
export { OpenAIError } from './openai-error';
