import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import {
  EventCatalogue,
  EventEnvelope,
  isSealedValue,
  PersonalField,
  SEALED_FIELD,
  SealedValue,
} from '@shop/contracts';
import { DataKeyMissingError } from './data-keys';

const TAG_BYTES = 16;
const NONCE_BYTES = 12;
const NONCES_PER_FILL = 1024;

type Data = Record<string, unknown>;
type Keys = ReadonlyMap<string, Buffer | null> | null;

/** Binds a ciphertext to its event and field, so one cannot be moved to stand in for another. */
const associatedData = (eventId: string, field: string) => Buffer.from(`${eventId}|${field}`, 'utf8');

/**
 * Random 96-bit nonces, drawn from the system's generator a thousand at a time: one call per
 * nonce cost as much as the encryption. Each nonce is used once, before the pool is refilled.
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

function seal(key: Buffer, keyId: string, eventId: string, field: string, value: unknown): SealedValue {
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

function open(key: Buffer, eventId: string, field: string, sealed: SealedValue): unknown {
  const body = Buffer.from(sealed.ct, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'base64'));
  decipher.setAAD(associatedData(eventId, field));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  const clear = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  return JSON.parse(clear.toString('utf8')) as unknown;
}

const isPersonal = (fields: readonly PersonalField[], name: string) => fields.some((f) => f.name === name);

/**
 * The envelope as stored: its personal fields taken out of the data and sealed together under
 * `keyId` in `SEALED_FIELD` (one encryption per event, however many fields), everything else as it was.
 */
export function sealEnvelope(
  catalogue: EventCatalogue,
  envelope: EventEnvelope,
  keyId: string,
  key: Buffer,
): EventEnvelope {
  const fields = catalogue.personalFields(envelope.type);
  if (fields.length === 0) return envelope;
  const written = envelope.data as Data;
  const data: Data = {};
  const personal: Data = {};
  for (const name in written) {
    if (isPersonal(fields, name)) personal[name] = written[name];
    else data[name] = written[name];
  }
  data[SEALED_FIELD] = seal(key, keyId, envelope.id, SEALED_FIELD, personal);
  return { ...envelope, data };
}

/** The data key ids an envelope's sealed fields name. */
export function sealedKeyIds(catalogue: EventCatalogue, envelope: EventEnvelope, into: Set<string>): void {
  if (!catalogue.has(envelope.type)) return;
  const data = envelope.data as Data | null;
  if (typeof data !== 'object' || data === null) return;
  const together = data[SEALED_FIELD];
  if (isSealedValue(together)) {
    into.add(together.kid);
    return;
  }
  for (const { name } of catalogue.personalFields(envelope.type)) {
    const value = data[name];
    if (isSealedValue(value)) into.add(value.kid);
  }
}

/** The key that opens `sealed`: null when it was destroyed or this reader holds no keys. */
function keyFor(keys: Keys, sealed: SealedValue): Buffer | null {
  if (keys === null) return null;
  const key = keys.get(sealed.kid);
  if (key === undefined) throw new DataKeyMissingError(sealed.kid);
  return key;
}

/** Clear and opened fields in the order the data was written in, as if never taken apart. */
function reassemble(order: readonly string[], stored: Data, personal: Data): Data {
  const data: Data = {};
  for (const name of order) {
    if (name in personal) data[name] = personal[name];
    else if (name in stored) data[name] = stored[name];
  }
  for (const name in stored) if (!(name in data) && name !== SEALED_FIELD) data[name] = stored[name];
  for (const name in personal) if (!(name in data)) data[name] = personal[name];
  return data;
}

/**
 * The envelope's data with its sealed fields opened, or set to their erased markers when the key
 * was destroyed or this reader holds no keys at all. Reads all three stored shapes: personal
 * fields sealed together, each sealed in place (as written before), and in clear (as written
 * before personal data was encrypted).
 */
export function openEnvelopeData(catalogue: EventCatalogue, envelope: EventEnvelope, keys: Keys): unknown {
  if (!catalogue.has(envelope.type)) return envelope.data;
  const fields = catalogue.personalFields(envelope.type);
  const stored = envelope.data as Data | null;
  if (fields.length === 0 || typeof stored !== 'object' || stored === null) return envelope.data;
  const together = stored[SEALED_FIELD];
  if (isSealedValue(together)) {
    const key = keyFor(keys, together);
    const personal =
      key === null
        ? Object.fromEntries(fields.map((f) => [f.name, f.erased]))
        : (open(key, envelope.id, SEALED_FIELD, together) as Data);
    return reassemble(catalogue.dataFieldOrder(envelope.type), stored, personal);
  }
  let data: Data | null = null;
  for (const { name, erased } of fields) {
    const value = stored[name];
    if (!isSealedValue(value)) continue;
    data ??= { ...stored };
    const key = keyFor(keys, value);
    data[name] = key === null ? erased : open(key, envelope.id, name, value);
  }
  return data ?? stored;
}
