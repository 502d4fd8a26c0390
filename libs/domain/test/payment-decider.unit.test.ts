import { describe, expect, it } from 'vitest';
import { PaymentEvent } from '@shop/contracts';
import { ConfirmationDelivery, VerifyPayment } from '../src/payment/payment-commands';
import { paymentDecider } from '../src/payment/payment-decider';
import { ObservedTransaction, PaymentTerms } from '../src/payment/payment-terms';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(paymentDecider);

const full = (hex: string) => `0x${hex.padStart(64, '0')}`;
const merchant = full('a11ce');
const payer = full('b0b');
const sender = full('5e4d');
const usdc = `${full('dba3')}::usdc::USDC`;
const sui = full('2') + '::sui::SUI';
const terms: PaymentTerms = {
  network: 'testnet',
  merchant: '0xa11ce',
  coinType: '0x2::sui::SUI',
  minimumAmount: 1_000n,
};
const paymentId = '7d1f7c9e-8a4e-4c1e-9f0a-3b2d1c0e9f8a';
const userId = '0b7c6d5e-4f3a-4b2c-8d1e-0f9a8b7c6d5e';
const otherUser = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

function paying(amount: bigint, overrides: Partial<ObservedTransaction> = {}): ObservedTransaction {
  return {
    status: 'success',
    error: null,
    sender,
    balanceChanges: [
      { owner: payer, coinType: '0x2::sui::SUI', amount: -amount - 750n },
      { owner: '0xa11ce', coinType: '0x2::sui::SUI', amount },
    ],
    ...overrides,
  };
}

const verify = (transaction?: ObservedTransaction | null, user = userId): VerifyPayment => ({
  type: 'VerifyPayment',
  paymentId,
  userId: user,
  terms,
  ...(transaction !== undefined ? { transaction } : {}),
});
const deliver = (delivery: ConfirmationDelivery) => ({
  type: 'RecordConfirmationDelivery' as const,
  delivery,
});

const started: PaymentEvent = {
  type: 'PaymentVerificationStarted',
  data: { paymentId, userId, network: 'testnet', merchant, coinType: sui, minimumAmount: '1000' },
};
const verified: PaymentEvent = {
  type: 'PaymentVerified',
  data: { amount: '1500', payer, receiver: merchant, coinType: sui },
};
const forwarded: PaymentEvent = {
  type: 'PaymentConfirmationForwarded',
  data: { backendStatus: 200, attempts: 1 },
};

describe('payment decider: verification', () => {
  it('records the claim and the verified payment together, with canonical addresses and coin type', () => {
    given()
      .when(verify(paying(1_500n)))
      .then([started, verified]);
  });

  it('takes the payer from the largest outgoing change of the coin, and counts the whole minimum', () => {
    const tx = paying(1_000n, {
      balanceChanges: [
        { owner: sender, coinType: sui, amount: -10n },
        { owner: payer, coinType: '0x2::sui::SUI', amount: -990n },
        { owner: merchant, coinType: sui, amount: 1_000n },
      ],
    });
    const [, outcome] = given().when(verify(tx)).events();
    expect(outcome).toEqual({
      type: 'PaymentVerified',
      data: { amount: '1000', payer, receiver: merchant, coinType: sui },
    });
  });

  it('falls back to the sender when no address paid the coin directly', () => {
    const tx = paying(2_000n, { balanceChanges: [{ owner: merchant, coinType: sui, amount: 2_000n }] });
    const [, outcome] = given().when(verify(tx)).events();
    expect(outcome).toMatchObject({ type: 'PaymentVerified', data: { payer: sender } });
  });

  it.each([
    [
      'a failed transaction',
      paying(5_000n, { status: 'failure', error: 'MoveAbort(...) in command 0' }),
      'TRANSACTION_FAILED',
      '0',
    ],
    [
      'a payment to another address',
      paying(5_000n, { balanceChanges: [{ owner: full('e11e'), coinType: sui, amount: 5_000n }] }),
      'NO_PAYMENT_TO_MERCHANT',
      '0',
    ],
    [
      'a payment in another coin',
      paying(5_000n, { balanceChanges: [{ owner: merchant, coinType: usdc, amount: 5_000n }] }),
      'WRONG_COIN_TYPE',
      '0',
    ],
    ['a payment below the minimum', paying(999n), 'AMOUNT_TOO_SMALL', '999'],
    [
      'a payment nobody can be credited for',
      paying(5_000n, { sender: null, balanceChanges: [{ owner: merchant, coinType: sui, amount: 5_000n }] }),
      'UNKNOWN_PAYER',
      '5000',
    ],
  ])('records %s as FAILED with its reason', (_, tx, code, amount) => {
    const events = given().when(verify(tx)).events();
    expect(events[0]).toEqual(started);
    expect(events[1]).toMatchObject({ type: 'PaymentVerificationFailed', data: { code, amount } });
    expect(given(...events).state).toMatchObject({
      status: 'FAILED',
      failureCode: code,
      amount,
      receiver: merchant,
    });
  });

  it('records nothing for a digest the chain does not know', () => {
    given().when(verify(null)).thenThrows('TRANSACTION_NOT_FOUND', 'not_found');
  });

  it('never verifies a recorded payment twice, whatever the chain says now', () => {
    for (const history of [[started, verified], [started, verified, forwarded], [started]]) {
      given(...history)
        .when(verify())
        .then([]);
      given(...history)
        .when(verify(paying(9_999n)))
        .then([]);
    }
  });

  it('refuses another user a digest whose claim the backend acknowledged', () => {
    given(started, verified, forwarded)
      .when(verify(undefined, otherUser))
      .thenThrows('TX_HASH_CLAIMED', 'conflict');
  });

  it('lets another user claim a digest the backend has not acknowledged yet, without the chain', () => {
    const notYet: PaymentEvent = {
      type: 'PaymentConfirmationForwardFailed',
      data: { reason: 'the backend answered 400: WALLET_NOT_PROVISIONED', backendStatus: 400, attempts: 1 },
    };
    const takeover = given(started, verified, notYet).when(verify(undefined, otherUser));
    takeover.then([{ ...started, data: { ...started.data, userId: otherUser } }, verified]);
    expect(given(started, verified, notYet, ...takeover.events()).state).toMatchObject({
      status: 'PENDING',
      userId: otherUser,
      failureReason: null,
      amount: '1500',
      payer,
    });
  });

  it('records nothing when the claimant of an unacknowledged digest verifies it again', () => {
    given(started, verified).when(verify()).then([]);
  });

  it('needs the chain’s answer before recording a new payment', () => {
    expect(() => given().when(verify()).events()).toThrow(/must carry what the chain reported/);
  });
});

describe('payment decider: confirmation delivery', () => {
  it('releases a digest the backend refused for its claimant, and lets another user claim it without the chain', () => {
    const refusal = given(started, verified).when(
      deliver({
        acknowledged: false,
        refused: true,
        reason: 'not your wallet',
        backendStatus: 400,
        attempts: 1,
      }),
    );
    refusal.then([
      { type: 'PaymentConfirmationRefused', data: { reason: 'not your wallet', backendStatus: 400 } },
    ]);
    const refused = refusal.events();
    const released = given(started, verified, ...refused);
    expect(released.state).toMatchObject({ status: 'FAILED', failureCode: 'DEPOSIT_REFUSED' });
    const reclaim = released.when(verify(undefined, otherUser));
    reclaim.then([{ ...started, data: { ...started.data, userId: otherUser } }, verified]);
    expect(given(started, verified, ...refused, ...reclaim.events()).state).toMatchObject({
      status: 'PENDING',
      userId: otherUser,
      failureCode: null,
      amount: '1500',
      payer,
    });
  });

  it('moves a verified payment to SUCCESS only on an acknowledgement', () => {
    const delivered = given(started, verified).when(
      deliver({ acknowledged: true, backendStatus: 200, attempts: 1 }),
    );
    delivered.then([forwarded]);
    expect(given(started, verified, ...delivered.events()).state).toMatchObject({
      status: 'SUCCESS',
      failureReason: null,
    });
  });

  it('keeps a payment PENDING with the reason when the backend could not be reached, then succeeds later', () => {
    const failure = given(started, verified).when(
      deliver({
        acknowledged: false,
        refused: false,
        reason: 'backend answered 503',
        backendStatus: 503,
        attempts: 4,
      }),
    );
    failure.then([
      {
        type: 'PaymentConfirmationForwardFailed',
        data: { reason: 'backend answered 503', backendStatus: 503, attempts: 4 },
      },
    ]);
    const failed = failure.events();
    const pending = given(started, verified, ...failed);
    expect(pending.state).toMatchObject({
      status: 'PENDING',
      failureReason: 'backend answered 503',
      amount: '1500',
    });
    const retried = pending.when(deliver({ acknowledged: true, backendStatus: 409, attempts: 1 })).events();
    expect(given(started, verified, ...failed, ...retried).state).toMatchObject({
      status: 'SUCCESS',
      failureReason: null,
    });
  });

  it('ignores a second acknowledgement: the deposit is confirmed once', () => {
    given(started, verified, forwarded)
      .when(deliver({ acknowledged: true, backendStatus: 200, attempts: 1 }))
      .then([]);
  });

  it('has nothing to deliver for a FAILED or unrecorded payment', () => {
    const failedTx: PaymentEvent = {
      type: 'PaymentVerificationFailed',
      data: { code: 'AMOUNT_TOO_SMALL', reason: 'too small', amount: '1' },
    };
    for (const history of [given(), given(started, failedTx)]) {
      history
        .when(deliver({ acknowledged: true, backendStatus: 200, attempts: 1 }))
        .thenThrows('PAYMENT_NOT_VERIFIED');
    }
  });
});
