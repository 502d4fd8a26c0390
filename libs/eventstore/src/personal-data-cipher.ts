import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { EventCatalogue, EventEnvelope, isSealedValue, SealedValue } from '@shop/contracts';
import { DataKeyMissingError } from './data-keys';

const TAG_BYTES = 16;
const NONCE_BYTES = 12;
const NONCES_PER_FILL = 1024;

/** Binds a ciphertext to its event and field, so one cannot be moved to stand in for another. */
const associatedData = (eventId: string, field: string) => Buffer.from(`${eventId}|${field}`, 'utf8');

/**
 * Random 96-bit nonces, drawn from the system's generator a thousand at a time: one call per
 * nonce cost about as much as the encryption itself. Each nonce is used once, before the pool
 * is refilled.
 */
let nonces = Buffer.alloc(0);
let nextNonce = 0;
function nonce(): Buffer {
  if (nextNonce + NONCE_BYTES > nonces.length) {
    nonces = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * NONCES_PER_FILL));
    nextNonce = 0;
  }
  nextNonce += NONCE_BYTES;
  return nonces.subarray(nextNonce - NONCE_BYTES, nextNonce);
}

export function sealValue(
  key: Buffer,
  keyId: string,
  eventId: string,
  field: string,
  value: unknown,
): SealedValue {
  const iv = nonce();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData(eventId, field));
  const body = Buffer.concat([
    cipher.update(JSON.stringify(value), 'utf8'),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return { kid: keyId, nonce: iv.toString('base64'), ct: body.toString('base64') };
}

/**
 * Room for one opening's nonce and ciphertext: a replay opens about a field per event, and
 * decoding each into a Buffer of its own was a large part of the opening's cost.
 * Every use is synchronous and the cipher copies what it is given, so one buffer serves them all.
 */
let scratch = Buffer.allocUnsafe(4096);

export function openValue(key: Buffer, eventId: string, field: string, sealed: SealedValue): unknown {
  // Base64 decodes to fewer bytes than it has characters.
  const room = sealed.nonce.length + sealed.ct.length;
  if (scratch.length < room) scratch = Buffer.allocUnsafe(Math.max(room, 2 * scratch.length));
  const nonceEnd = scratch.write(sealed.nonce, 0, 'base64');
  const body = scratch.subarray(nonceEnd, nonceEnd + scratch.write(sealed.ct, nonceEnd, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', key, scratch.subarray(0, nonceEnd));
  decipher.setAAD(associatedData(eventId, field));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  const clear = decipher.update(body.subarray(0, body.length - TAG_BYTES));
  // GCM yields all of the plaintext from update; final only checks the tag, before the plaintext is used.
  decipher.final();
  return JSON.parse(clear.toString('utf8')) as unknown;
}

/** The envelope as stored: its personal fields sealed under `keyId`, everything else as it was. */
export function sealEnvelope(
  catalogue: EventCatalogue,
  envelope: EventEnvelope,
  keyId: string,
  key: Buffer,
): EventEnvelope {
  const fields = catalogue.personalFields(envelope.type);
  if (fields.length === 0) return envelope;
  const data = { ...(envelope.data as Record<string, unknown>) };
  for (const { name } of fields) {
    if (name in data) data[name] = sealValue(key, keyId, envelope.id, name, data[name]);
  }
  return { ...envelope, data };
}

/** The data key ids an envelope's sealed fields name. */
export function sealedKeyIds(catalogue: EventCatalogue, envelope: EventEnvelope, into: Set<string>): void {
  if (!catalogue.has(envelope.type)) return;
  const data = envelope.data as Record<string, unknown> | null;
  if (typeof data !== 'object' || data === null) return;
  for (const { name } of catalogue.personalFields(envelope.type)) {
    const value = data[name];
    if (isSealedValue(value)) into.add(value.kid);
  }
}

/**
 * The envelope's data with each sealed field opened, or set to its erased marker when its key
 * was destroyed or this reader holds no keys at all. A field stored in clear (written before
 * personal data was encrypted) is read as it is. The data is the reader's freshly parsed copy
 * and its fields are opened in place: a copy of it per sealed event was garbage on every replay.
 */
export function openEnvelopeData(
  catalogue: EventCatalogue,
  envelope: EventEnvelope,
  keys: ReadonlyMap<string, Buffer | null> | null,
): unknown {
  if (!catalogue.has(envelope.type)) return envelope.data;
  const fields = catalogue.personalFields(envelope.type);
  const stored = envelope.data as Record<string, unknown> | null;
  if (fields.length === 0 || typeof stored !== 'object' || stored === null) return envelope.data;
  for (const { name, erased } of fields) {
    const value = stored[name];
    if (!isSealedValue(value)) continue;
    if (keys === null) {
      stored[name] = erased;
      continue;
    }
    const key = keys.get(value.kid);
    if (key === undefined) throw new DataKeyMissingError(value.kid);
    stored[name] = key === null ? erased : openValue(key, envelope.id, name, value);
  }
  return stored;
}
