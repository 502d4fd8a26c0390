import { randomBytes, randomUUID } from 'node:crypto';
import { normalizeSuiAddress, toBase58 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import { openTestEventStore, TestEventStore } from '@shop/testing';
import { paymentTransactionsProjection } from '../src/payment/read-model/payment-transactions.projection';
import { searchMigrations } from '../src/payment/read-model/search-migrations';
import { ApiClient, ApiResponse, newAddress, SearchStack, startSearchStack, webhookSecret } from './stack';

const SUI = '0x2::sui::SUI';
const SUI_FULL = `${normalizeSuiAddress('0x2')}::sui::SUI`;
const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const ONE_SUI = 1_000_000_000n;

let stack: SearchStack;
let client: ApiClient;

beforeAll(async () => {
  stack = await startSearchStack('payments');
  client = new ApiClient(stack.url);
});
afterAll(async () => stack?.stop());

function pay(options: { amountMist?: bigint; coinType?: string; receiver?: string; failed?: boolean } = {}) {
  const payer = newAddress();
  const digest = stack.sui.createPayment({
    payer,
    receiver: options.receiver ?? stack.merchant,
    amountMist: options.amountMist ?? ONE_SUI + 500_000_000n,
    coinType: options.coinType ?? SUI,
    nonce: randomUUID(),
    failed: options.failed ?? false,
  });
  return { digest, payer: normalizeSuiAddress(payer) };
}

/** Each verification from an address of its own: the route's rate limit is tested on its own. */
const verify = (txHash: string, userId: string = randomUUID()): Promise<ApiResponse> =>
  new ApiClient(stack.url).request('POST', '/api/payment/verify', { txHash, userId });
const chainReads = () => stack.sui.requestCount('sui_getTransactionBlock');
const forwardsOf = (txHash: string) =>
  stack.backend.received().filter((r) => (r.body as { transactionHash?: string }).transactionHash === txHash);

describe('POST /api/payment/verify', () => {
  it('verifies a payment, confirms the deposit to the backend, and records it', async () => {
    const { digest, payer } = pay();
    const userId = randomUUID();
    const res = await verify(digest, userId);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: {
        success: true,
        transactionHash: digest,
        amount: '1500000000',
        network: 'testnet',
        paymentId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'SUCCESS',
        failureReason: null,
      },
      status: 'OK',
      code: 200,
      message: expect.any(String),
    });
    const [forward, ...more] = forwardsOf(digest);
    expect(more).toEqual([]);
    expect(forward).toMatchObject({
      method: 'POST',
      url: `/api/deposit/${userId}/${payer}/confirm`,
      body: { amount: '1500000000', transactionHash: digest, network: 'testnet', currency: SUI_FULL },
    });
    expect(forward!.headers['x-webhook-secret']).toBe(webhookSecret);
    expect(forward!.headers['content-type']).toMatch(/application\/json/);

    const { paymentId } = res.json.data as { paymentId: string };
    const record = await client.get(`/api/payment/transaction/${digest}`);
    expect(record.status).toBe(200);
    const expected = {
      paymentId,
      txHash: digest,
      status: 'SUCCESS',
      amount: '1500000000',
      receiver: stack.merchant,
      network: 'testnet',
      currency: SUI_FULL,
      failureCode: null,
      failureReason: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    };
    expect(record.json).toEqual({ data: expected, status: 'OK', code: 200, message: expect.any(String) });
    const byId = await client.get(`/api/payment/${paymentId}`);
    expect(byId.status).toBe(200);
    expect(byId.json.data).toEqual(record.json.data);
  });

  it('answers a repeat from the record: no chain read, no second forward', async () => {
    const { digest } = pay();
    const userId = randomUUID();
    const first = await verify(digest, userId);
    expect(first.status).toBe(200);
    const reads = chainReads();
    const again = await verify(digest, userId);
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    expect(chainReads()).toBe(reads);
    expect(forwardsOf(digest)).toHaveLength(1);
  });

  it.each([
    ['a payment to another address', () => pay({ receiver: newAddress() }), 'NO_PAYMENT_TO_MERCHANT', '0'],
    ['a payment below the minimum', () => pay({ amountMist: ONE_SUI - 1n }), 'AMOUNT_TOO_SMALL', '999999999'],
    [
      'a payment in another coin',
      () => pay({ coinType: USDC, amountMist: 5n * ONE_SUI }),
      'WRONG_COIN_TYPE',
      '0',
    ],
    ['a failed transaction', () => pay({ failed: true }), 'TRANSACTION_FAILED', '0'],
  ])(
    'refuses %s with 422, records it FAILED, and never forwards it',
    async (_, makePayment, code, amount) => {
      const { digest } = makePayment();
      const userId = randomUUID();
      const res = await verify(digest, userId);
      expect(res.status).toBe(422);
      expect(res.json).toEqual({
        data: {
          success: false,
          transactionHash: digest,
          amount,
          network: 'testnet',
          paymentId: expect.any(String),
          status: 'FAILED',
          failureReason: expect.any(String),
        },
        status: code,
        code: 422,
        message: (res.json.data as { failureReason: string }).failureReason,
      });
      const record = await client.get(`/api/payment/transaction/${digest}`);
      expect(record.json.data).toMatchObject({
        status: 'FAILED',
        failureCode: code,
        amount,
        receiver: stack.merchant,
      });
      const reads = chainReads();
      expect((await verify(digest, userId)).status).toBe(422);
      expect(chainReads()).toBe(reads);
      expect(forwardsOf(digest)).toEqual([]);
    },
  );

  it('answers 404 for a digest the chain does not know, and appends nothing to the stream', async () => {
    const digest = toBase58(randomBytes(32));
    const res = await verify(digest);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ data: null, status: 'TRANSACTION_NOT_FOUND', code: 404 });
    expect((await client.get(`/api/payment/transaction/${digest}`)).status).toBe(404);
    const t = await openTestEventStore(stack.env);
    try {
      expect(await t.store.load('payment', digest)).toMatchObject({ events: [], version: 0 });
    } finally {
      await t.nc.drain();
    }
  });

  it("lets the payer's verification run after the attempt in flight, whatever strangers keep sending", async () => {
    const { digest } = pay();
    // A stranger's claim holds the lock for longer than a waiter used to wait: two answers that
    // are retried, then the backend's refusal of a user whose wallet did not pay it.
    stack.backend.setDelay(2_000);
    stack.backend.answerNext(503, 503, { status: 400, code: 'WALLET_MISMATCH' });
    const stranger = verify(digest);
    await expect.poll(() => forwardsOf(digest).length).toBe(1);
    const payerId = randomUUID();
    const payer = verify(digest, payerId);
    await new Promise((r) => setTimeout(r, 200));
    const laterStrangers = Promise.all([verify(digest), verify(digest)]);

    const [strangerAnswer, payerAnswer] = await Promise.all([stranger, payer]);
    stack.backend.setDelay(0);
    expect([strangerAnswer.status, strangerAnswer.json.status]).toEqual([422, 'DEPOSIT_REFUSED']);
    expect([payerAnswer.status, payerAnswer.json.status]).toEqual([200, 'OK']);
    expect(payerAnswer.json.data).toMatchObject({ success: true, status: 'SUCCESS' });
    expect((await laterStrangers).map((a) => a.json.status)).toEqual(['TX_HASH_CLAIMED', 'TX_HASH_CLAIMED']);
  });

  it('never lets a claim the backend has not acknowledged keep the payer out', async () => {
    const { digest, payer } = pay();
    // A stranger names a user whose wallet is still being provisioned: the backend asks again later.
    stack.backend.answerNext({ status: 400, code: 'WALLET_NOT_PROVISIONED' });
    const namedId = randomUUID();
    const stranger = await verify(digest, namedId);
    expect([stranger.status, stranger.json.status]).toEqual([502, 'DEPOSIT_CONFIRMATION_FAILED']);

    const payerId = randomUUID();
    const paid = await verify(digest, payerId);
    expect([paid.status, paid.json.status]).toEqual([200, 'OK']);
    expect(forwardsOf(digest).map((r) => r.url)).toEqual([
      `/api/deposit/${namedId}/${payer}/confirm`,
      `/api/deposit/${payerId}/${payer}/confirm`,
    ]);
    // Credited, the digest is the payer's: the stranger is now refused.
    const late = await verify(digest, namedId);
    expect([late.status, late.json.status]).toEqual([409, 'TX_HASH_CLAIMED']);
  });

  it('verifies and forwards once under concurrent duplicate requests', async () => {
    const { digest } = pay();
    const userId = randomUUID();
    stack.backend.setDelay(300);
    const answers = await Promise.all(Array.from({ length: 5 }, () => verify(digest, userId)));
    stack.backend.setDelay(0);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => (a.json.data as { paymentId: string }).paymentId)).size).toBe(1);
    expect(forwardsOf(digest)).toHaveLength(1);
  });

  it('keeps a payment PENDING when the backend cannot be reached, and a later verify only retries the delivery', async () => {
    const { digest } = pay();
    const userId = randomUUID();
    stack.backend.answerNext(503, 503, 503, 503);
    const failed = await verify(digest, userId);
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({
      data: {
        success: false,
        status: 'PENDING',
        amount: '1500000000',
        failureReason: expect.stringContaining('503'),
      },
      status: 'DEPOSIT_CONFIRMATION_FAILED',
      code: 502,
    });
    expect(forwardsOf(digest).map((f) => f.status)).toEqual([503, 503, 503, 503]);
    const pending = await client.get(`/api/payment/transaction/${digest}`);
    expect(pending.json.data).toMatchObject({
      status: 'PENDING',
      failureReason: expect.stringContaining('503'),
    });

    const reads = chainReads();
    const retried = await verify(digest, userId);
    expect(retried.status).toBe(200);
    expect(retried.json.data).toMatchObject({ success: true, status: 'SUCCESS', failureReason: null });
    expect(chainReads()).toBe(reads);
    expect(forwardsOf(digest).map((f) => f.status)).toEqual([503, 503, 503, 503, 200]);
    expect((await client.get(`/api/payment/transaction/${digest}`)).json.data).toMatchObject({
      status: 'SUCCESS',
      failureReason: null,
    });
  });

  it('takes a 409 DEPOSIT_ALREADY_CREDITED from the backend as the acknowledgement', async () => {
    const { digest } = pay();
    stack.backend.answerNext({ status: 409, code: 'DEPOSIT_ALREADY_CREDITED' });
    const res = await verify(digest);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ success: true, status: 'SUCCESS' });
    expect(forwardsOf(digest)).toHaveLength(1);
  });

  it('does not take a 409 DEPOSIT_IN_PROGRESS as the acknowledgement: the payment stays PENDING', async () => {
    const { digest } = pay();
    const userId = randomUUID();
    const inProgress = { status: 409, code: 'DEPOSIT_IN_PROGRESS' };
    stack.backend.answerNext(inProgress, inProgress, inProgress, inProgress);
    const res = await verify(digest, userId);
    expect([res.status, res.json.status]).toEqual([502, 'DEPOSIT_CONFIRMATION_FAILED']);
    expect(res.json.data).toMatchObject({ success: false, status: 'PENDING' });
    stack.backend.answerNext({ status: 409, code: 'DEPOSIT_ALREADY_CREDITED' });
    const again = await verify(digest, userId);
    expect(again.json.data).toMatchObject({ success: true, status: 'SUCCESS' });
  });

  it.each([
    ['the wallet is not provisioned yet', { status: 400, code: 'WALLET_NOT_PROVISIONED' }],
    ['a validation error (the services disagree on a format)', { status: 400, code: 'VALIDATION_ERROR' }],
    ['an unexpected 422', { status: 422, code: 'SCRIPTED' }],
  ])(
    'keeps a payment PENDING when the backend refuses what can change (%s), and delivers it later',
    async (_, refusal) => {
      const { digest } = pay();
      const userId = randomUUID();
      stack.backend.answerNext(refusal);
      const first = await verify(digest, userId);
      expect([first.status, first.json.status]).toEqual([502, 'DEPOSIT_CONFIRMATION_FAILED']);
      expect(first.json.data).toMatchObject({ success: false, status: 'PENDING' });
      const again = await verify(digest, userId);
      expect(again.json.data).toMatchObject({ success: true, status: 'SUCCESS' });
      expect(forwardsOf(digest).map((f) => f.status)).toEqual([refusal.status, 200]);
    },
  );

  it.each(['WALLET_MISMATCH', 'INVALID_COIN_TYPE', 'INVALID_AMOUNT', 'USER_NOT_FOUND', 'CONFLICT'])(
    'fails a payment for good when the backend refuses what cannot change (%s), releasing the digest',
    async (code) => {
      const { digest } = pay();
      stack.backend.answerNext({ status: code === 'CONFLICT' ? 409 : 400, code });
      const refused = await verify(digest);
      expect([refused.status, refused.json.status]).toEqual([422, 'DEPOSIT_REFUSED']);
      expect(refused.json.data).toMatchObject({ success: false, status: 'FAILED' });
      expect(forwardsOf(digest)).toHaveLength(1);
    },
  );

  it('refuses a digest already claimed by another user', async () => {
    const { digest } = pay();
    expect((await verify(digest, randomUUID())).status).toBe(200);
    const other = await verify(digest, randomUUID());
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ data: null, status: 'TX_HASH_CLAIMED', code: 409 });
    expect(forwardsOf(digest)).toHaveLength(1);
  });

  it.each([
    [{ txHash: 'abc-def', userId: randomUUID() }, /^txHash: /],
    [{ txHash: 'a'.repeat(201), userId: randomUUID() }, /^txHash: /],
    [{ txHash: 'abcdef', userId: randomUUID() }, /txHash: is not a chain transaction digest/],
    [{ txHash: toBase58(randomBytes(32)), userId: 'user-1' }, /^userId: /],
    [{ userId: randomUUID() }, /^txHash: /],
  ])('refuses the body %j with 400 naming the field', async (body, field) => {
    const res = await client.request('POST', '/api/payment/verify', body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      data: null,
      status: 'BAD_REQUEST',
      code: 400,
      message: expect.stringMatching(field),
    });
  });
});

describe('rate limit of POST /api/payment/verify', () => {
  it('lets 10 verifications a minute through per address, then answers 429 before any chain read', async () => {
    const client = new ApiClient(stack.url);
    const unknown = () => ({ txHash: toBase58(randomBytes(32)), userId: randomUUID() });
    const allowed = [];
    for (let i = 0; i < 10; i++) allowed.push(await client.request('POST', '/api/payment/verify', unknown()));
    expect(allowed.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 404));
    expect(allowed[9]!.headers.get('ratelimit-remaining')).toBe('0');
    const reads = chainReads();
    const refused = await client.request('POST', '/api/payment/verify', unknown());
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ data: null, status: 'TOO_MANY_REQUESTS', code: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(chainReads()).toBe(reads);
    expect((await new ApiClient(stack.url).request('POST', '/api/payment/verify', unknown())).status).toBe(
      404,
    );
  });
});

describe('GET /api/payment/transaction/:txHash and /api/payment/:paymentId', () => {
  it('refuses malformed keys with 400 and answers 404 for unknown ones', async () => {
    expect((await client.get(`/api/payment/transaction/${'a'.repeat(201)}`)).json).toMatchObject({
      status: 'BAD_REQUEST',
      code: 400,
      message: expect.stringMatching(/^txHash: /),
    });
    expect((await client.get('/api/payment/transaction/abc_def')).status).toBe(400);
    expect((await client.get(`/api/payment/transaction/${'a'.repeat(300)}`)).json).toMatchObject({
      data: null,
      status: 'URI_TOO_LONG',
      code: 414,
    });
    expect((await client.get('/api/payment/transaction/%zz')).json).toMatchObject({
      data: null,
      status: 'BAD_REQUEST',
      code: 400,
    });
    expect((await client.get('/api/payment/not-a-uuid')).json).toMatchObject({
      status: 'BAD_REQUEST',
      code: 400,
      message: expect.stringMatching(/^paymentId: /),
    });
    expect((await client.get('/api/payment/transaction/UnknownHash123')).json).toMatchObject({
      data: null,
      status: 'NOT_FOUND',
      code: 404,
    });
    expect((await client.get(`/api/payment/${randomUUID()}`)).status).toBe(404);
  });
});

describe('the transaction records', () => {
  let t: TestEventStore;
  let database: DatabaseHandle;

  beforeAll(async () => {
    t = await openTestEventStore(stack.env);
    database = createDatabase(stack.env.databaseUrl, { max: 2 });
  });
  afterAll(async () => {
    await t.nc.drain();
    await database.close();
  });

  it('are a projection: rebuilt from the stream they are the same rows', async () => {
    const last = await t.store.lastStreamSequence();
    expect(last).toBeGreaterThan(10);
    await expect
      .poll(async () => {
        const { rows } = await database.pool.query<{ position: number }>(
          `SELECT position FROM ${stack.env.schema}.projection_checkpoints WHERE projection = $1`,
          [paymentTransactionsProjection.name],
        );
        return Number(rows[0]?.position ?? 0);
      })
      .toBeGreaterThanOrEqual(last);
    const rebuilt = `${stack.env.schema}_rebuilt`;
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: rebuilt,
      projections: [paymentTransactionsProjection],
      migrations: searchMigrations,
    });
    const live = await tableChecksums(database.db, stack.env.schema, paymentTransactionsProjection.tables);
    expect(live.payment_transactions!.rows).toBeGreaterThanOrEqual(10);
    expect(await tableChecksums(database.db, rebuilt, paymentTransactionsProjection.tables)).toEqual(live);
    await database.pool.query(`DROP SCHEMA ${rebuilt} CASCADE`);
  });
});
