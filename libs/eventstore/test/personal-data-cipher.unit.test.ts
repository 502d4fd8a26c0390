import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Commit, ERASED, eventCatalogue, EventEnvelope, SEALED_FIELD, SealedValue } from '@shop/contracts';
import { commitKeyIds, encodeCommit, decodeCommit } from '../src/commit-codec';
import { DataKeyMissingError } from '../src/data-keys';
import { sealEnvelope } from '../src/personal-data-cipher';

const userId = randomUUID();
const keyId = `user:${userId}`;
const key = randomBytes(32);
const subject = `shop.user.${userId}`;

const envelope = (type: string, data: unknown): EventEnvelope => ({
  id: randomUUID(),
  type,
  version: 1,
  aggregateId: userId,
  occurredAt: new Date().toISOString(),
  correlationId: 'c',
  causationId: null,
  actor: { kind: 'user', id: userId },
  data,
});

const address = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '12 Crescent Lane',
  apt: null,
  country: 'GB',
  city: 'Marylebone',
  state: null,
  zip: 'NW1 5LT',
};
const clear: EventEnvelope[] = [
  envelope('UserRegistered', { providerSubject: 'p|ada', email: 'ada@example.com' }),
  envelope('ShippingAddressSaved', address),
  envelope('WalletProvisioningStarted', { attempt: 1 }),
];
const sealed: Commit = {
  commandId: 'cmd',
  events: clear.map((e) => sealEnvelope(eventCatalogue, e, keyId, key)),
};
const decode = (commit: Commit, keys: ReadonlyMap<string, Buffer | null> | null) =>
  decodeCommit(eventCatalogue, 'shop', subject, 7, encodeCommit(commit), keys).map((e) => e.data);

/** The format before personal fields were sealed together: each field sealed in place. */
function sealEachField(envelope: EventEnvelope): EventEnvelope {
  const fields = eventCatalogue.personalFields(envelope.type);
  if (fields.length === 0) return envelope;
  const data = { ...(envelope.data as Record<string, unknown>) };
  for (const { name } of fields) {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(`${envelope.id}|${name}`, 'utf8'));
    const body = Buffer.concat([
      cipher.update(JSON.stringify(data[name]), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    data[name] = {
      kid: keyId,
      nonce: nonce.toString('base64'),
      ct: body.toString('base64'),
    } satisfies SealedValue;
  }
  return { ...envelope, data };
}

describe('personal data at rest', () => {
  it('stores personal fields sealed and everything else as it was', () => {
    const stored = new TextDecoder().decode(encodeCommit(sealed));
    for (const value of ['ada@example.com', 'p|ada', 'Lovelace', '12 Crescent Lane', 'Marylebone', 'NW1 5LT'])
      expect(stored).not.toContain(value);
    expect(sealed.events[1]!.data).toEqual({
      country: 'GB',
      [SEALED_FIELD]: expect.objectContaining({ kid: keyId }),
    });
    expect(sealed.events[2]!.data).toEqual({ attempt: 1 });
    expect(commitKeyIds(eventCatalogue, sealed)).toEqual(new Set([keyId]));
  });

  it('opens sealed fields with their key', () => {
    expect(decode(sealed, new Map([[keyId, key]]))).toEqual(clear.map((e) => e.data));
  });

  it('reads a destroyed key, or no keys at all, as the erased marker that fits each field', () => {
    const erased = [
      { providerSubject: ERASED, email: null },
      {
        ...address,
        firstName: ERASED,
        lastName: ERASED,
        street: ERASED,
        apt: ERASED,
        city: ERASED,
        zip: ERASED,
        state: ERASED,
      },
      { attempt: 1 },
    ];
    expect(decode(sealed, new Map([[keyId, null]]))).toEqual(erased);
    expect(decode(sealed, null)).toEqual(erased);
  });

  it('reads an event written in clear before encryption as it is', () => {
    expect(decode({ commandId: 'old', events: clear }, new Map())).toEqual(clear.map((e) => e.data));
  });

  it('refuses a key that was never stored, a wrong key, and a ciphertext moved to another event', () => {
    expect(() => decode(sealed, new Map())).toThrow(DataKeyMissingError);
    expect(() => decode(sealed, new Map([[keyId, randomBytes(32)]]))).toThrow();
    const [first, second] = sealed.events;
    const moved = {
      ...second!,
      data: {
        ...(second!.data as object),
        [SEALED_FIELD]: (first!.data as Record<string, unknown>)[SEALED_FIELD],
      },
    };
    expect(() => decode({ commandId: 'x', events: [moved] }, new Map([[keyId, key]]))).toThrow();
  });

  it('reads events stored with each personal field sealed on its own, as they were written before', () => {
    const perField: Commit = { commandId: 'older', events: clear.map(sealEachField) };
    const stored = new TextDecoder().decode(encodeCommit(perField));
    expect(stored).not.toContain('Lovelace');
    expect(perField.events[1]!.data).toMatchObject({ country: 'GB', apt: { kid: keyId } });
    expect(commitKeyIds(eventCatalogue, perField)).toEqual(new Set([keyId]));
    expect(decode(perField, new Map([[keyId, key]]))).toEqual(clear.map((e) => e.data));
    expect(decode(perField, new Map([[keyId, null]]))).toEqual(decode(sealed, new Map([[keyId, null]])));
    const [first, second] = perField.events;
    const moved = {
      ...second!,
      data: { ...(second!.data as object), city: (first!.data as { email: unknown }).email },
    };
    expect(() => decode({ commandId: 'x', events: [moved] }, new Map([[keyId, key]]))).toThrow();
  });

  it('puts opened fields back in the order the data was written in', () => {
    const [, address] = decode(sealed, new Map([[keyId, key]]));
    expect(JSON.stringify(address)).toBe(JSON.stringify(clear[1]!.data));
  });

  it('marks every personal field the issue names, and gives each an erased value its schema accepts', () => {
    const marked = Object.fromEntries(
      eventCatalogue.definitions
        .filter((d) => eventCatalogue.personalFields(d.type).length > 0)
        .map((d) => [d.type, eventCatalogue.personalFields(d.type).map((f) => f.name)]),
    );
    expect(marked).toEqual({
      UserRegistered: ['providerSubject', 'email'],
      DisplayNameSet: ['displayName'],
      ShippingAddressSaved: ['firstName', 'lastName', 'street', 'apt', 'city', 'state', 'zip'],
      SizesSaved: ['topsSize', 'bottomsSize', 'footwearSize'],
      SessionCreated: ['title'],
      SessionRenamed: ['title'],
      ChatMessageAppended: ['parts'],
      PreferenceRemembered: ['fact'],
    });
  });
});
