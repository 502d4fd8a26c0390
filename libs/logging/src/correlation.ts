import { ContextSlot } from './context-slot';

const correlation = new ContextSlot<string>('correlationId');

/** Runs `fn` with a correlation id that log lines and appended events pick up. */
export function withCorrelationId<T>(correlationId: string, fn: () => T): T {
  return correlation.run(correlationId, fn);
}

export function currentCorrelationId(): string | undefined {
  return correlation.get();
}
