import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '@shop/domain';

const keySchema = z.string().min(1).max(255);

/**
 * The command id of a request that carries an `Idempotency-Key`: scoped to the user and
 * the operation, so two users (or two routes) reusing a key never collide, and a retry of
 * the same request is stored once.
 */
export function idempotentCommandId(
  userId: string,
  operation: string,
  header: string | undefined,
): string | undefined {
  if (header === undefined) return undefined;
  if (!keySchema.safeParse(header).success) {
    throw new DomainError('invalid', 'VALIDATION_ERROR', 'Idempotency-Key must be 1-255 characters');
  }
  return createHash('sha256').update(`${userId}\u0000${operation}\u0000${header}`).digest('hex').slice(0, 40);
}
