/**
 * The second model call of a chat's first exchange: it names the session. The system prompt starts with
 * TITLE_PROMPT_MARKER so a model that cannot read instructions (the offline one) still knows the task.
 */
export const TITLE_PROMPT_MARKER = '[[shop:session-title]]';
export const TITLE_MAX_LENGTH = 50;
export const FALLBACK_TITLE = 'New chat';

export interface TitlePrompt {
  system: string;
  prompt: string;
}

export function buildTitlePrompt(firstUserText: string): TitlePrompt {
  return {
    system: [
      TITLE_PROMPT_MARKER,
      'You name shopping chat sessions.',
      `Reply with a title of at most ${TITLE_MAX_LENGTH} characters for the conversation that starts with the user's message.`,
      'Reply with the title only: no quotes, no "Title:" prefix, no trailing punctuation.',
    ].join('\n'),
    prompt: firstUserText,
  };
}

const QUOTES = /["“”„«»`]/g;
const WRAPPING_SINGLE_QUOTES = /^['‘’]+|['‘’]+$/g;

/**
 * Makes any model answer a valid session title: first non-empty line, no label, no quotes or markdown,
 * no trailing punctuation, at most TITLE_MAX_LENGTH characters (cut at a word boundary when one is near).
 * Models ignore length instructions often enough that the limit must be enforced here.
 */
export function cleanTitle(text: string): string {
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate.length > 0);
  const title = (line ?? '')
    .replace(/^(?:session\s+)?title\s*:\s*/i, '')
    .replace(/[*_#]+/g, '')
    .replace(QUOTES, '')
    .replace(WRAPPING_SINGLE_QUOTES, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s.,;:!?-]+$/, '')
    .trim();
  return truncate(title) || FALLBACK_TITLE;
}

function truncate(title: string): string {
  const characters = Array.from(title);
  if (characters.length <= TITLE_MAX_LENGTH) return title;
  const cut = characters.slice(0, TITLE_MAX_LENGTH + 1).join('');
  const space = cut.lastIndexOf(' ');
  // A word boundary far back would throw away most of the title; a hard cut keeps more meaning.
  const kept =
    space >= TITLE_MAX_LENGTH / 2 ? cut.slice(0, space) : characters.slice(0, TITLE_MAX_LENGTH).join('');
  return kept.replace(/[\s.,;:!?-]+$/, '');
}
