import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DepositForwarder } from '../src/payment/deposit-forwarder';
import { FakeBackend, startFakeBackend } from './fake-backend';

let backend: FakeBackend;

beforeAll(async () => {
  backend = await startFakeBackend();
});
afterAll(async () => {
  await backend.close();
});

const confirmation = (transactionHash: string) => ({
  userId: '0b7c6d5e-4f3a-4b2c-8d1e-0f9a8b7c6d5e',
  payer: `0x${'b0b'.padStart(64, '0')}`,
  amount: '1500',
  transactionHash,
  network: 'testnet',
  currency: '0x2::sui::SUI',
});

const forwarder = (attempts: number) =>
  new DepositForwarder({ backendUrl: backend.url, attempts, baseDelayMs: 1, attemptTimeoutMs: 2_000 });

describe('the deposit forwarder', () => {
  it('counts a 2xx as acknowledged only when its body is the deposit result of this digest, asking again meanwhile', async () => {
    const digest = `Dig3stAck${Date.now()}`;
    const before = backend.received().length;
    backend.answerNext(
      { status: 200, code: '', body: '<html>ok</html>' },
      { status: 200, code: '', body: '{"success":true}' },
      { status: 200, code: '', body: JSON.stringify({ success: true, txDigest: 'AnotherDigest' }) },
      { status: 204, code: '', body: '' },
    );
    const delivery = await forwarder(5).forward(confirmation(digest), 'secret');
    expect(delivery).toEqual({ acknowledged: true, backendStatus: 200, attempts: 5 });
    const sent = backend.received().slice(before);
    // Every attempt the same confirmation of the same digest: the backend credits it once.
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map((r) => JSON.stringify([r.url, r.body])))).toHaveProperty('size', 1);
    expect(sent[0]!.body).toMatchObject({ transactionHash: digest });
  });

  it('leaves a payment unacknowledged, for a later delivery, when no 2xx acknowledged it', async () => {
    backend.answerNext(
      { status: 200, code: '', body: '{}' },
      { status: 200, code: '', body: JSON.stringify({ success: false, txDigest: 'x' }) },
    );
    const delivery = await forwarder(2).forward(confirmation(`Dig3stNak${Date.now()}`), 'secret');
    expect(delivery).toMatchObject({ acknowledged: false, refused: false, backendStatus: 200, attempts: 2 });
    expect(delivery.acknowledged === false && delivery.reason).toMatch(
      /^the backend answered 200 without acknowledging the deposit/,
    );
  });
});
