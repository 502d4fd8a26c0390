import pino, { Logger } from 'pino';
import { currentCorrelationId } from './correlation';

export type { Logger };

/** Structured JSON logs; every line written inside a request or message carries its correlation id. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    mixin() {
      const correlationId = currentCorrelationId();
      return correlationId ? { correlationId } : {};
    },
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-webhook-secret"]',
        '*.jwt',
        '*.refreshToken',
        '*.privateKey',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
