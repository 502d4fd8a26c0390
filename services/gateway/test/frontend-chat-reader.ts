/**
 * The existing frontend's reader of POST /api/chat, written as it reads: the body's `data:` lines
 * as they arrive, each chunk dispatched on its `type`, taking either the AI SDK v6 field or the
 * older one it also understands, and skipping every kind it does not render.
 */
export interface FrontendChatView {
  text: string;
  toolCalls: { toolCallId: string; toolName: string; args: unknown }[];
  toolResults: Map<string, unknown>;
  errors: string[];
  dataParts: { type: string; id?: string; data: unknown }[];
  finishReason?: string;
  /** Whether the stream ended with `data: [DONE]`. */
  done: boolean;
}

type Chunk = Record<string, unknown> & { type: string };

function apply(view: FrontendChatView, chunk: Chunk): void {
  switch (chunk.type) {
    case 'text-delta':
      view.text += String(chunk.delta ?? chunk.textDelta ?? '');
      return;
    case 'tool-input-available':
    case 'tool-call':
      view.toolCalls.push({
        toolCallId: String(chunk.toolCallId),
        toolName: String(chunk.toolName),
        args: chunk.input ?? chunk.args,
      });
      return;
    case 'tool-output-available':
    case 'tool-result':
      view.toolResults.set(String(chunk.toolCallId), chunk.output ?? chunk.result);
      return;
    case 'error':
      view.errors.push(String(chunk.errorText ?? chunk.error));
      return;
    case 'finish':
      view.finishReason = chunk.finishReason as string | undefined;
      return;
    default:
      if (chunk.type.startsWith('data-')) {
        view.dataParts.push({
          type: chunk.type,
          ...(typeof chunk.id === 'string' ? { id: chunk.id } : {}),
          data: chunk.data,
        });
      }
  }
}

export async function readChatLikeTheFrontend(body: ReadableStream<Uint8Array>): Promise<FrontendChatView> {
  const view: FrontendChatView = {
    text: '',
    toolCalls: [],
    toolResults: new Map(),
    errors: [],
    dataParts: [],
    done: false,
  };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    buffered += decoder.decode(next.value, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: ')) continue;
      const payload = line.slice('data: '.length).trim();
      if (payload === '[DONE]') {
        view.done = true;
        continue;
      }
      apply(view, JSON.parse(payload) as Chunk);
    }
  }
  return view;
}
