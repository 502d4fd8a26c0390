import { z } from 'zod';
import { sealedValueSchema } from './personal-data';

export const actorSchema = z.object({
  kind: z.enum(['user', 'system', 'provider', 'chain', 'operator']),
  id: z.string().nullable(),
  /**
   * The outside agent (OAuth client id) that issued the command on the actor's behalf over MCP;
   * absent when the actor acted itself (the shop's own frontend or chat).
   */
  agentClientId: z.string().optional(),
});
export type Actor = z.infer<typeof actorSchema>;

export const systemActor: Actor = { kind: 'system', id: null };

/** What every event carries around its data. `version` is the version of `data`'s schema. */
export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  aggregateId: z.string().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  correlationId: z.string().min(1),
  causationId: z.string().nullable(),
  actor: actorSchema,
  data: z.unknown(),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

/**
 * An envelope as stored: the personal fields its type marks are taken out of `data` and sealed
 * together in `personalData`, so ids, amounts and types stay readable without keys. Readers
 * open it back into `data`; no reader past the event store sees it.
 */
export const storedEnvelopeSchema = eventEnvelopeSchema.extend({
  personalData: sealedValueSchema.optional(),
});
export type StoredEnvelope = z.infer<typeof storedEnvelopeSchema>;

/**
 * One JetStream message: the events one command decided. Storing them together keeps a
 * command atomic on a server without batch publish, and lets one expected-sequence header
 * guard all of them.
 */
export const commitSchema = z.object({
  commandId: z.string().min(1),
  events: z.array(storedEnvelopeSchema).min(1),
});
export type Commit = z.infer<typeof commitSchema>;
