import { randomUUID } from 'node:crypto';
import { z } from 'zod';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The packets of @nestjs/microservices' NATS transport, spoken directly over an existing
 * connection: its own client needs a second NATS library and connection for the same job.
 * A request is `{pattern, data, id}`; the reply echoes `id` with `response`, or `err` when Nest
 * itself failed (no handler for the pattern).
 */
export function encodeNestRequest(pattern: string, data: unknown): Uint8Array {
  return encoder.encode(JSON.stringify({ pattern, data, id: randomUUID() }));
}

const replyPacketSchema = z.object({ response: z.unknown().optional(), err: z.unknown().optional() });

export type NestReply = { ok: true; response: unknown } | { ok: false; error: string };

export function decodeNestReply(payload: Uint8Array): NestReply {
  let packet: z.infer<typeof replyPacketSchema>;
  try {
    packet = replyPacketSchema.parse(JSON.parse(decoder.decode(payload)));
  } catch {
    return { ok: false, error: 'the reply is not a Nest packet' };
  }
  if (packet.err !== undefined && packet.err !== null) {
    return { ok: false, error: typeof packet.err === 'string' ? packet.err : JSON.stringify(packet.err) };
  }
  return { ok: true, response: packet.response };
}
