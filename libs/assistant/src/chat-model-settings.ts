/** What picks the chat model: the gateway's OPENAI_* and CHAT_MODEL variables, as @shop/config parses them. */
export interface ChatModelSettings {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  CHAT_MODEL?: string;
}
