/**
 * A reader of the AI SDK v6 UI message stream (what useChat parses), small enough for a page
 * without a bundler: SSE events in, UI-message parts out.
 */

/** Yields each chunk of an SSE body (`data: <json>` events; `[DONE]` ends it). */
export async function* readChunks(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '[DONE]') return;
      if (data) yield JSON.parse(data);
    }
    if (done) return;
  }
}

export function emptyAssistantMessage() {
  return { id: '', role: 'assistant', parts: [], error: undefined, finishReason: undefined };
}

function toolPart(message, toolCallId, toolName) {
  let part = message.parts.find((candidate) => candidate.toolCallId === toolCallId);
  if (!part) {
    part = { type: `tool-${toolName}`, toolCallId, state: 'input-streaming' };
    message.parts.push(part);
  }
  return part;
}

/** Folds one chunk into the message, the way the SDK's client does. */
export function applyChunk(message, chunk) {
  const textPart = () => message.parts.find((part) => part.type === 'text' && part.id === chunk.id);
  switch (chunk.type) {
    case 'start':
      if (chunk.messageId) message.id = chunk.messageId;
      break;
    case 'start-step':
      message.parts.push({ type: 'step-start' });
      break;
    case 'text-start':
      message.parts.push({ type: 'text', id: chunk.id, text: '', state: 'streaming' });
      break;
    case 'text-delta': {
      const part = textPart();
      if (part) part.text += chunk.delta;
      break;
    }
    case 'text-end': {
      const part = textPart();
      if (part) part.state = 'done';
      break;
    }
    case 'tool-input-start':
      toolPart(message, chunk.toolCallId, chunk.toolName);
      break;
    case 'tool-input-available':
      Object.assign(toolPart(message, chunk.toolCallId, chunk.toolName), {
        input: chunk.input,
        state: 'input-available',
      });
      break;
    case 'tool-output-available': {
      const part = message.parts.find((candidate) => candidate.toolCallId === chunk.toolCallId);
      if (part) Object.assign(part, { output: chunk.output, state: 'output-available' });
      break;
    }
    case 'tool-output-error': {
      const part = message.parts.find((candidate) => candidate.toolCallId === chunk.toolCallId);
      if (part) Object.assign(part, { errorText: chunk.errorText, state: 'output-error' });
      break;
    }
    case 'error':
      message.error = chunk.errorText;
      break;
    case 'finish':
      message.finishReason = chunk.finishReason;
      break;
    default:
      if (chunk.type.startsWith('data-')) {
        const same =
          chunk.id !== undefined &&
          message.parts.find((part) => part.type === chunk.type && part.id === chunk.id);
        if (same) same.data = chunk.data;
        else message.parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
      }
  }
  return message;
}
