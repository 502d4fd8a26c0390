import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once against a service's schema. Every bad variable is reported
 * together so an operator fixes them in one pass rather than one restart per variable.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      return `${name}: ${issue.message}`;
    }),
  );
}

/** Start-up entry: a bad environment ends the process with one readable message, not a stack trace. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, service: string): z.output<S> {
  try {
    return loadConfig(schema);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`[${service}] ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
