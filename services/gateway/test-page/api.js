/**
 * The gateway's API as the page uses it: same origin, cookies only (the session cookie is
 * HttpOnly, the page never sees a token). A refusal throws an ApiError with the spec's code.
 */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function refusal(response) {
  const body = await response.json().catch(() => ({}));
  return new ApiError(response.status, body.code ?? 'UNKNOWN', body.error ?? response.statusText);
}

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: 'include',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await refusal(response);
  return response.status === 204 ? undefined : response.json();
}

/** Starts a chat turn; the caller reads the streamed body. */
export async function startChat(body, signal) {
  const response = await fetch('/api/chat', {
    method: 'POST',
    credentials: 'include',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await refusal(response);
  return response;
}
