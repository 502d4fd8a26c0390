import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { eventCatalogue, EventEnvelope, StoredEnvelope } from '@shop/contracts';
import { buildCommit } from '../src/commit-codec';
import { sealEnvelope, sealValue } from '../src/personal-data-cipher';

const userId = randomUUID();
const key = randomBytes(32);

/** One event of every type that carries personal data, and one that carries none. */
const events: [string, unknown][] = [
  ['UserRegistered', { providerSubject: 'p|ada', email: 'ada@example.com' }],
  ['DisplayNameSet', { displayName: 'Ada' }],
  [
    'ShippingAddressSaved',
    {
      firstName: 'Ada',
      lastName: 'Lovelace',
      street: '12 Crescent Lane',
      apt: null,
      country: 'GB',
      city: 'London',
      state: null,
      zip: 'NW1',
    },
  ],
  ['SizesSaved', { topsSize: 'M', bottomsSize: '32', footwearSize: '42', firstCompletion: true }],
  ['SessionCreated', { userId, title: 'Winter boots' }],
  ['SessionRenamed', { title: 'Boots', generated: false }],
  ['ChatMessageAppended', { messageId: 'm1', role: 'user', parts: [{ type: 'text', text: 'boots' }] }],
  ['PreferenceRemembered', { fact: 'likes green', namespace: userId, source: 'chat' }],
  ['WalletProvisioningStarted', { attempt: 1 }],
];

const envelopes: EventEnvelope[] = buildCommit(
  eventCatalogue,
  userId,
  events.map(([type, data]) => ({ type, data })),
  { commandId: 'c', correlationId: 'c', actor: { kind: 'user', id: userId } },
).events;

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validators = new Map<string, ValidateFunction>();
/** The schema errors of an envelope as it goes on the wire; none when the published schema accepts it. */
const validate = (envelope: StoredEnvelope) => {
  let check = validators.get(envelope.type);
  if (!check) {
    const file = resolve(__dirname, `../../../proto/events/${envelope.type}.schema.json`);
    check = ajv.compile(JSON.parse(readFileSync(file, 'utf8')) as object);
    validators.set(envelope.type, check);
  }
  return check(JSON.parse(JSON.stringify(envelope))) ? [] : check.errors;
};

describe('the published event schemas', () => {
  it('describe events as this build stores them: personal fields sealed together in personalData', () => {
    const stored = envelopes.map((e) => sealEnvelope(eventCatalogue, e, `user:${userId}`, key));
    expect(stored.filter((e) => e.personalData).length).toBe(events.length - 1);
    for (const envelope of stored) expect(validate(envelope), envelope.type).toEqual([]);
  });

  it('describe events of earlier builds too: each field sealed in place, or in clear', () => {
    for (const envelope of envelopes) {
      expect(validate(envelope), envelope.type).toEqual([]);
      const data = { ...(envelope.data as Record<string, unknown>) };
      for (const { name } of eventCatalogue.personalFields(envelope.type))
        data[name] = sealValue(key, `user:${userId}`, envelope.id, name, data[name]);
      expect(validate({ ...envelope, data }), envelope.type).toEqual([]);
    }
  });

  it('refuse a sealed value that lost its ciphertext, and a personal box on an event without personal data', () => {
    const [registered] = envelopes;
    const sealed = sealEnvelope(eventCatalogue, registered!, `user:${userId}`, key);
    const { ct: _ct, ...lost } = sealed.personalData!;
    expect(validate({ ...sealed, personalData: lost as never })).not.toEqual([]);
    const plain = envelopes.at(-1)!;
    expect(validate({ ...plain, personalData: sealed.personalData })).not.toEqual([]);
  });
});
