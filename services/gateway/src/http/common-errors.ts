import { ApiError } from '@shop/http';

/** Errors every gated route can answer, listed once for the OpenAPI document. */
export const gatedErrors: ApiError[] = [
  { status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' },
  { status: 403, code: 'ONBOARDING_INCOMPLETE', description: 'onboarding not finished' },
  { status: 429, code: 'RATE_LIMIT_EXCEEDED', description: 'too many requests' },
];

export const validationError: ApiError = {
  status: 400,
  code: 'VALIDATION_ERROR',
  description: 'body or parameter failed schema validation',
};
