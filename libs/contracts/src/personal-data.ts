import { z } from 'zod';
import { AggregateName } from './aggregates';

/** What a reader sees in place of a personal field whose data key was destroyed. */
export const ERASED = '[erased]';

/**
 * Personal data as stored: AES-256-GCM ciphertext (tag appended) of JSON, under the data key
 * `kid`, with its 96-bit nonce. An event's personal fields are sealed together as one object in
 * its envelope's `personalData`; events written by earlier builds hold one per field, in place
 * in `data`. Only the owner's key opens it, so destroying that key erases the data from every
 * copy of the stream at once.
 */
export const sealedValueSchema = z.strictObject({
  kid: z.string().min(1).max(240),
  nonce: z.base64(),
  ct: z.base64(),
});
export type SealedValue = z.infer<typeof sealedValueSchema>;

export function isSealedValue(value: unknown): value is SealedValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.kid === 'string' && typeof v.nonce === 'string' && typeof v.ct === 'string';
}

/**
 * The subject of data whose key encrypts an aggregate's personal fields: a chat session's
 * words are erased with the session, everything else a user said with the user.
 */
export function dataKeyIdFor(aggregate: AggregateName, aggregateId: string): string {
  switch (aggregate) {
    case 'session':
      return `session:${aggregateId}`;
    case 'user':
    case 'memory':
      return `user:${aggregateId}`;
    default:
      throw new Error(`the ${aggregate} aggregate has no data key: its events carry no personal data`);
  }
}

/** Candidates for an erased field's value, the first one its schema accepts being used. */
const erasedCandidates: readonly unknown[] = [ERASED, [{ type: 'text', text: ERASED }], null];

/** The value a field of `schema` takes once erased, so erased events still validate. */
export function erasedValueFor(schema: z.ZodType, where: string): unknown {
  const fit = erasedCandidates.find((candidate) => schema.safeParse(candidate).success);
  if (fit === undefined) throw new Error(`${where}: no erased marker fits this personal field's schema`);
  return fit;
}
