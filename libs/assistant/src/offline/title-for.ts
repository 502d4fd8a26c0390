import { cleanTitle } from '../title-prompt';
import { parseIntent } from './intent';

const CHAT_TITLE = 'Shopping chat';

/**
 * Greetings, with whom they greet and their punctuation, however many ("Hi, there! Hello all,"),
 * then politeness and request verbs: none says anything about the chat's subject.
 */
const LEAD_IN =
  /^(?:(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening|day))\b[\s,!.]*(?:(?:there|all|everyone|everybody|again|team|guys|folks|friends?|y'all|buddy)\b[\s,!.]*)?)*(?:(?:please|can you|could you|would you|will you)\s+)?(?:(?:show|find|get)\s+me\s+|i(?:'m| am)\s+looking\s+for\s+|i(?:'d| would)\s+like\s+|i\s+(?:want|need)\s+|help\s+me\s+find\s+|search\s+for\s+|look\s+for\s+|find\s+)?/i;

/**
 * The offline model's session title: the first message's subject, lead-in dropped ("Show me red running
 * shoes under $80" -> "Red running shoes under $80"). Small talk gets a generic title.
 */
export function titleFor(firstUserText: string): string {
  const { kind } = parseIntent(firstUserText);
  if (kind === 'greeting' || kind === 'thanks' || kind === 'off-topic') return CHAT_TITLE;
  const subject = firstUserText.trim().replace(/\s+/g, ' ').replace(LEAD_IN, '');
  return cleanTitle(subject.charAt(0).toUpperCase() + subject.slice(1));
}
