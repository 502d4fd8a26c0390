/** Most characters of client context given to the model: a long history costs tokens on every turn. */
export const CONTEXT_BUDGET_CHARS = 32_000;
