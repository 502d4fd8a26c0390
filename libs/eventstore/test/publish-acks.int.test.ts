import { randomUUID } from 'node:crypto';
import { headers, NatsError } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { PublishAcks } from '../src/publish-acks';

const env = testEnvironment('pubacks');
let t: TestEventStore;
let acks: PublishAcks;

const data = new TextEncoder().encode('{}');
const failureOf = (error: unknown) => {
  const { code, message, api_error } = error as NatsError;
  return { code, message, api_error };
};

beforeAll(async () => {
  t = await openTestEventStore(env);
  acks = new PublishAcks(t.nc, 2000);
});
afterAll(async () => t.close());

describe('PublishAcks: JetStream publishes acknowledged on the store own subscription', () => {
  it('answers the stored sequence, and a repeated message id as the duplicate of it, as js.publish does', async () => {
    const subject = t.store.subject('user', randomUUID());
    const msgID = randomUUID();
    const first = await acks.publish(subject, data, headers(), { msgID, lastSubjectSequence: 0 });
    const again = await acks.publish(subject, data, headers(), { msgID, lastSubjectSequence: 0 });
    const viaClient = await t.store.js.publish(subject, data, { msgID, expect: { lastSubjectSequence: 0 } });
    expect(first).toMatchObject({ stream: env.stream, duplicate: false });
    expect(again).toEqual({ ...first, duplicate: true });
    expect(viaClient).toEqual(again);
  });

  it('fails a publish behind the expected subject sequence with the API error js.publish throws', async () => {
    const subject = t.store.subject('user', randomUUID());
    await acks.publish(subject, data, headers(), { msgID: randomUUID(), lastSubjectSequence: 0 });
    const ours = await acks
      .publish(subject, data, headers(), { msgID: randomUUID(), lastSubjectSequence: 0 })
      .catch((e: unknown) => e);
    const theirs = await t.store.js
      .publish(subject, data, { msgID: randomUUID(), expect: { lastSubjectSequence: 0 } })
      .catch((e: unknown) => e);
    expect(failureOf(ours).api_error?.err_code).toBe(10071);
    expect(failureOf(ours)).toEqual(failureOf(theirs));
  });

  it('fails with no responders where no stream takes the subject, as js.publish does', async () => {
    const subject = `nostream${randomUUID()}.x`;
    const ours = await acks
      .publish(subject, data, headers(), { lastSubjectSequence: 0 })
      .catch((e: unknown) => e);
    const theirs = await t.store.js.publish(subject, data).catch((e: unknown) => e);
    expect(failureOf(ours).code).toBe('503');
    expect(failureOf(ours)).toEqual(failureOf(theirs));
  });

  it('times out a publish nobody acknowledges, with the timeout js.publish throws', async () => {
    const subject = `silent${randomUUID()}.x`;
    const silent = t.nc.subscribe(subject);
    const quick = new PublishAcks(t.nc, 100);
    const ours = await quick
      .publish(subject, data, headers(), { lastSubjectSequence: 0 })
      .catch((e: unknown) => e);
    const theirs = await t.store.js.publish(subject, data, { timeout: 100 }).catch((e: unknown) => e);
    silent.unsubscribe();
    expect(failureOf(ours).code).toBe('TIMEOUT');
    expect(failureOf(ours)).toEqual(failureOf(theirs));
  });
});
