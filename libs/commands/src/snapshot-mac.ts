import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** What a snapshot's MAC binds its payload to: which aggregate, at which commit, in which shape. */
export interface SnapshotBinding {
  aggregate: string;
  subject: string;
  /** The stream sequence of the last commit folded into it. */
  version: number;
  schema: number;
}

/**
 * A snapshot as the runner stores it: the payload's exact JSON text and its HMAC-SHA256. The text
 * is kept as written, so the MAC is checked over the very bytes it was computed on and nothing is
 * parsed before it verifies.
 */
const authenticatedBody = z.strictObject({
  payload: z.string(),
  mac: z.string().regex(/^[0-9a-f]{64}$/),
});

/** A snapshot whose MAC does not verify: forged, replayed under another subject or sequence, or written under another key. */
export class SnapshotRefusedError extends Error {
  constructor(
    readonly subject: string,
    version: number,
  ) {
    super(
      `the snapshot of ${subject} at ${version} fails its MAC (forged, replayed from elsewhere, or written under another key)`,
    );
    this.name = 'SnapshotRefusedError';
  }
}

function mac(key: Buffer, binding: SnapshotBinding, payload: string): Buffer {
  // The binding is a JSON array, which holds no raw newline: the separator cannot be forged into it.
  const header = JSON.stringify([
    'shop-snapshot-v1',
    binding.aggregate,
    binding.subject,
    binding.version,
    binding.schema,
  ]);
  return createHmac('sha256', key).update(header).update('\n').update(payload).digest();
}

/** The stored body of a snapshot of `value` (plain JSON), under the writing service's key. */
export function authenticateSnapshot(
  key: Buffer,
  binding: SnapshotBinding,
  value: unknown,
): z.infer<typeof authenticatedBody> {
  const payload = JSON.stringify(value);
  return { payload, mac: mac(key, binding, payload).toString('hex') };
}

/** The payload of a stored body, only once its MAC verifies for this binding under `key`. */
export function openAuthenticatedSnapshot(key: Buffer, binding: SnapshotBinding, body: unknown): unknown {
  const parsed = authenticatedBody.safeParse(body);
  if (!parsed.success) throw new SnapshotRefusedError(binding.subject, binding.version);
  const expected = mac(key, binding, parsed.data.payload);
  if (!timingSafeEqual(expected, Buffer.from(parsed.data.mac, 'hex')))
    throw new SnapshotRefusedError(binding.subject, binding.version);
  return JSON.parse(parsed.data.payload) as unknown;
}
