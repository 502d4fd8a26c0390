import { z } from 'zod';

export const actorSchema = z.object({
  kind: z.enum(['user', 'system', 'provider', 'chain', 'operator']),
  id: z.string().nullable(),
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
 * One JetStream message: the events one command decided. Storing them together keeps a
 * command atomic on a server without batch publish, and lets one expected-sequence header
 * guard all of them.
 */
export const commitSchema = z.object({
  commandId: z.string().min(1),
  events: z.array(eventEnvelopeSchema).min(1),
});
export type Commit = z.infer<typeof commitSchema>;
