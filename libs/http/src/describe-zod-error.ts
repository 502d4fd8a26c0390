import { ZodError } from 'zod';

/** Validation messages name the field, so a client can point at it. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
