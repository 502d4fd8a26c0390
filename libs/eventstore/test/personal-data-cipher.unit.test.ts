import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Commit, ERASED, eventCatalogue, EventEnvelope, StoredEnvelope, subjectFor } from '@shop/contracts';
import { commitKeyIds, encodeCommit, decodeCommit } from '../src/commit-codec';
import { DataKeyMissingError } from '../src/data-keys';
import { openEnvelopeData, openValue, sealEnvelope, sealValue } from '../src/personal-data-cipher';

const userId = randomUUID();
const keyId = `user:${userId}`;
const key = randomBytes(32);
const subject = subjectFor('shop', 'user', userId);

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
/** An envelope as builds before one sealing per event stored it: each personal field sealed in place. */
function sealedFieldByField(e: EventEnvelope): StoredEnvelope {
  const data = { ...(e.data as Record<string, unknown>) };
  for (const { name } of eventCatalogue.personalFields(e.type))
    data[name] = sealValue(key, keyId, e.id, name, data[name]);
  return { ...e, data };
}
const decode = (commit: Commit, keys: ReadonlyMap<string, Buffer | null> | null) =>
  decodeCommit(eventCatalogue, 'shop', subject, 7, encodeCommit(commit), keys).map((e) => e.data);

describe('personal data at rest', () => {
  it('stores personal fields sealed and everything else as it was', () => {
    const stored = new TextDecoder().decode(encodeCommit(sealed));
    for (const value of ['ada@example.com', 'p|ada', 'Lovelace', '12 Crescent Lane', 'Marylebone', 'NW1 5LT'])
      expect(stored).not.toContain(value);
    expect(sealed.events[1]).toEqual({
      ...clear[1],
      data: { country: 'GB' },
      personalData: { kid: keyId, nonce: expect.any(String), ct: expect.any(String) },
    });
    expect(sealed.events[2]).toEqual(clear[2]);
    expect(commitKeyIds(eventCatalogue, sealed)).toEqual(new Set([keyId]));
  });

  it('opens sealed fields with their key, back in the order they were written in', () => {
    const opened = decode(sealed, new Map([[keyId, key]]));
    expect(opened).toEqual(clear.map((e) => e.data));
    expect(opened.map((data) => Object.keys(data as object))).toEqual(
      clear.map((e) => Object.keys(e.data as object)),
    );
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

  it('stores an event whose personal fields are all null as it is, and reads it so with or without keys', () => {
    const untitled = envelope('SessionCreated', { userId, title: null });
    expect(sealEnvelope(eventCatalogue, untitled, keyId, key)).toBe(untitled);
    const commit = { commandId: 'untitled', events: [untitled] };
    expect(commitKeyIds(eventCatalogue, commit)).toEqual(new Set());
    for (const keys of [new Map([[keyId, key]]), new Map([[keyId, null]]), null])
      expect(decode(commit, keys)).toEqual([{ userId, title: null }]);
  });

  it('reads an event written in clear before encryption as it is', () => {
    expect(decode({ commandId: 'old', events: clear }, new Map())).toEqual(clear.map((e) => e.data));
  });

  it('reads events an earlier build sealed field by field, opened or erased', () => {
    const byField: Commit = { commandId: 'old', events: clear.map(sealedFieldByField) };
    expect(commitKeyIds(eventCatalogue, byField)).toEqual(new Set([keyId]));
    expect(decode(byField, new Map([[keyId, key]]))).toEqual(clear.map((e) => e.data));
    expect(decode(byField, new Map([[keyId, null]]))).toEqual(decode(sealed, null));
  });

  it('opens every field the sealed data holds, even one this build no longer marks personal', () => {
    const retired = { ...clear[2]!, personalData: sealValue(key, keyId, clear[2]!.id, null, { note: 'x' }) };
    expect(openEnvelopeData(eventCatalogue, retired, new Map([[keyId, key]]))).toEqual({
      attempt: 1,
      note: 'x',
    });
    expect(retired).not.toHaveProperty('personalData');
  });

  it('refuses a key that was never stored, a wrong key, and a ciphertext moved to another event', () => {
    expect(() => decode(sealed, new Map())).toThrow(DataKeyMissingError);
    expect(() => decode(sealed, new Map([[keyId, randomBytes(32)]]))).toThrow();
    const [first, second] = sealed.events;
    const moved = { ...second!, personalData: first!.personalData };
    expect(() => decode({ commandId: 'x', events: [moved] }, new Map([[keyId, key]]))).toThrow();
    const [oldFirst, oldSecond] = clear.map(sealedFieldByField);
    const movedField = {
      ...oldSecond!,
      data: { ...(oldSecond!.data as object), city: (oldFirst!.data as { email: unknown }).email },
    };
    expect(() => decode({ commandId: 'x', events: [movedField] }, new Map([[keyId, key]]))).toThrow();
  });

  it('opens values of any size, one after another', () => {
    const values = ['x'.repeat(20_000), 'short', { nested: ['é', 42] }, null];
    const sealedValues = values.map((value, i) => sealValue(key, keyId, `e${i}`, 'f', value));
    expect(sealedValues.map((s, i) => openValue(key, `e${i}`, 'f', s))).toEqual(values);
    expect(() => openValue(key, 'e0', 'f', { ...sealedValues[1]!, ct: sealedValues[3]!.ct })).toThrow();
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
