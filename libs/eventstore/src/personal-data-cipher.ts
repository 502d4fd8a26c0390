import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { EventCatalogue, EventEnvelope, isSealedValue, SealedValue, StoredEnvelope } from '@shop/contracts';
import { DataKeyMissingError } from './data-keys';

const TAG_BYTES = 16;
const NONCE_BYTES = 12;
const NONCES_PER_FILL = 1024;

/**
 * Binds a ciphertext to its event (and, for the one-field values of earlier builds, to its field),
 * so one cannot be moved to stand in for another.
 */
const associatedData = (eventId: string, field: string | null) =>
  Buffer.from(field === null ? eventId : `${eventId}|${field}`, 'utf8');

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
  field: string | null,
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

export function openValue(key: Buffer, eventId: string, field: string | null, sealed: SealedValue): unknown {
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

/**
 * Whether an event's data holds personal data to seal: a personal field that is not null. One
 * whose personal fields are all null (an untitled session) has nothing to hide, and a cipher
 * would cost microseconds on every read of it.
 */
export function holdsPersonalData(catalogue: EventCatalogue, type: string, data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const given = data as Record<string, unknown>;
  return catalogue.personalFields(type).some(({ name }) => given[name] !== undefined && given[name] !== null);
}

/**
 * The envelope as stored: its personal fields taken out of `data` and sealed together under
 * `keyId` in `personalData`, everything else as it was. One sealing per event, not per field:
 * each cipher costs several microseconds of set-up whatever it holds, more than the fields' bytes.
 * An event that holds no personal data (holdsPersonalData) is stored as it is.
 */
export function sealEnvelope(
  catalogue: EventCatalogue,
  envelope: EventEnvelope,
  keyId: string,
  key: Buffer,
): StoredEnvelope {
  if (!holdsPersonalData(catalogue, envelope.type, envelope.data)) return envelope;
  const fields = catalogue.personalFields(envelope.type);
  const given = envelope.data as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  const personal: Record<string, unknown> = {};
  for (const name in given) {
    if (fields.some((f) => f.name === name)) personal[name] = given[name];
    else data[name] = given[name];
  }
  return { ...envelope, data, personalData: sealValue(key, keyId, envelope.id, null, personal) };
}

/** The data key ids an envelope's sealed data names. */
export function sealedKeyIds(catalogue: EventCatalogue, envelope: StoredEnvelope, into: Set<string>): void {
  if (isSealedValue(envelope.personalData)) {
    into.add(envelope.personalData.kid);
    return;
  }
  if (!catalogue.has(envelope.type)) return;
  const data = envelope.data as Record<string, unknown> | null;
  if (typeof data !== 'object' || data === null) return;
  for (const { name } of catalogue.personalFields(envelope.type)) {
    const value = data[name];
    if (isSealedValue(value)) into.add(value.kid);
  }
}

/** The key a sealed value names: null when it was destroyed or this reader holds no keys. */
function keyOf(keys: ReadonlyMap<string, Buffer | null> | null, sealed: SealedValue): Buffer | null {
  if (keys === null) return null;
  const key = keys.get(sealed.kid);
  if (key === undefined) throw new DataKeyMissingError(sealed.kid);
  return key;
}

/**
 * The envelope's data with its sealed personal data opened back into it, or each personal field
 * set to its erased marker when the key was destroyed or this reader holds no keys at all. Events
 * of earlier builds, sealed field by field or written in clear before personal data was
 * encrypted, are read too. The envelope is the reader's freshly parsed copy and is consumed
 * (`personalData` leaves it; a field sealed in place is opened in place): a copy of each was
 * garbage on every replay.
 */
export function openEnvelopeData(
  catalogue: EventCatalogue,
  envelope: StoredEnvelope,
  keys: ReadonlyMap<string, Buffer | null> | null,
): unknown {
  if (envelope.personalData !== undefined) return openPersonalData(catalogue, envelope, keys);
  if (!catalogue.has(envelope.type)) return envelope.data;
  const fields = catalogue.personalFields(envelope.type);
  const stored = envelope.data as Record<string, unknown> | null;
  if (fields.length === 0 || typeof stored !== 'object' || stored === null) return envelope.data;
  for (const { name, erased } of fields) {
    const value = stored[name];
    if (!isSealedValue(value)) continue;
    const key = keyOf(keys, value);
    stored[name] = key === null ? erased : openValue(key, envelope.id, name, value);
  }
  return stored;
}

/**
 * Opens an envelope's `personalData` into its data. Every field it holds goes back, whatever
 * this build's catalogue marks personal now, so an event still upcasts from the shape it was
 * written in.
 */
function openPersonalData(
  catalogue: EventCatalogue,
  envelope: StoredEnvelope,
  keys: ReadonlyMap<string, Buffer | null> | null,
): unknown {
  const box = envelope.personalData!;
  delete envelope.personalData;
  const stored = envelope.data;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored))
    throw new Error(`event ${envelope.id} has sealed personal data but no data object`);
  const data = stored as Record<string, unknown>;
  const key = keyOf(keys, box);
  const order = catalogue.fieldNames(envelope.type);
  if (key === null) {
    const erased: Record<string, unknown> = {};
    for (const field of catalogue.personalFields(envelope.type)) erased[field.name] = field.erased;
    return inSchemaOrder(order, erased, data);
  }
  const opened = openValue(key, envelope.id, null, box);
  if (typeof opened !== 'object' || opened === null || Array.isArray(opened))
    throw new Error(`the personal data of event ${envelope.id} is not an object`);
  return inSchemaOrder(order, opened as Record<string, unknown>, data);
}

/**
 * The opened fields and the clear ones as one new object, in the schema's order as written.
 * Adding the opened fields to the parsed data object instead made every later read of it slower:
 * on rebuild the projections then cost more than the opening itself.
 */
function inSchemaOrder(
  order: readonly string[],
  opened: Record<string, unknown>,
  clear: Record<string, unknown>,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const name of order) {
    if (name in opened) data[name] = opened[name];
    else if (name in clear) data[name] = clear[name];
  }
  // Fields of an older version, which its upcaster still expects.
  for (const name in opened) if (!(name in data)) data[name] = opened[name];
  for (const name in clear) if (!(name in data)) data[name] = clear[name];
  return data;
}
