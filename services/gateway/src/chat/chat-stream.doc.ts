/** The 200 response of POST /api/chat in /doc: the wire protocol and how the spec's event names map onto it. */
export const CHAT_STREAM_DESCRIPTION = [
  'Server-Sent Events in the AI SDK v6 UI message stream protocol (header `x-vercel-ai-ui-message-stream: v1`), the format `useChat` parses. Each event is `data: <json chunk>`; the stream ends with `data: [DONE]`. The response header `X-Session-Id` carries the session (created when the request had no sessionId).',
  '',
  "The spec's event kinds and the v6 chunks that carry them:",
  '',
  '| spec kind | v6 chunk | fields |',
  '| --- | --- | --- |',
  '| text-delta | `text-delta` | `id`, `delta` (the text fragment; v6 never sends `textDelta`), between `text-start` and `text-end` |',
  '| tool-call | `tool-input-available` | `toolCallId`, `toolName`, `input` (the arguments) |',
  '| tool-result | `tool-output-available` | `toolCallId`, `output` (the result); a failed tool is `tool-output-error` with `errorText` |',
  '| data-* | `data-memwal-activity` | `id` (`memwal-recall`: the `loading` record is replaced by the outcome), `data`: `{source: "memwal", status: loading, success, empty or error, message, namespace, query, memories: [{blobId, text, distance}], injectedIntoPrompt}` |',
  '| error | `error` | `errorText` (what AI SDK 6 clients read) and `error` (the same text, as the spec names it); the stream then ends normally |',
  '| finish | `finish` | `finishReason` (stop, length, content-filter, tool-calls, error, other) |',
  '',
  'Also sent, and ignored by simple clients: `start` (`messageId`: the id the reply is stored under), `start-step` / `finish-step` around each model call (at most 5 per request), `tool-input-start` / `tool-input-delta` while a tool call is being written, `reasoning-*`. Chunks carry only the fields ai 6.0.0 clients know, except the `error` field of the error chunk (later 6.0.x clients ignore it; 6.0.0 clients, whose schemas are strict, end the chat in their error state with a validation message instead of the text).',
  '',
  'Tools: searchProducts (`{products, total, page, limit, totalPage}`), getProductDetails (the product itself, or `{productId, found: false}`), viewCart, addToCart, removeFromCart, checkout, rememberMemory (`{success, text, message}`, `text` being the fact saved), getOrders (`{success, orders, total, page, limit}`: the orders as GET /api/orders lists them, each with `statusText`, the status in words, and `timeline`, its steps each `done`, `current` or `upcoming`), compareProducts (`{success, products, differences, shared}`, each difference `{aspect, values}` in the order of products) and recallMemories (`{success, memories: [{text, relevance}]}`, most relevant first); these three answer an expected failure as a result `{success: false, code, message}`. A product carries productId, productName, price (integer USD cents, what POST /api/cart takes), image, productUrl, retailer, brand, category, rating, reviewCount, and sizes, colors and asin when known; the same values also as id, name, imageUrl and marketplace, with currency `USD`, the names existing clients read. The user turn and the reply (with its tool calls and results as parts) are stored in the session; GET /api/sessions/:id returns them. The first exchange of an untitled session names it.',
].join('\n');
