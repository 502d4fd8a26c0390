/** An answer in OpenAI's error shape, `{error: {message, type, param, code}}`. */
export class OpenAIError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly type: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'OpenAIError';
  }

  toBody() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new OpenAIError(400, message, 'invalid_request_error', param, code);
