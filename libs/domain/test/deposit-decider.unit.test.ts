import { describe, expect, it } from 'vitest';
import { DepositEvent } from '@shop/contracts';
import { ClaimDeposit, depositDecider } from '../src/deposit/deposit-decider';
import { fundingOutcome } from '../src/deposit/funding-outcome';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(depositDecider);

const user = '11111111-1111-4111-8111-111111111111';
const t0 = Date.parse('2026-11-21T10:00:00Z');
const claim = (now = t0, userId = user): ClaimDeposit => ({
  type: 'ClaimDeposit',
  userId,
  payerAddress: `0x${'a'.repeat(64)}`,
  evmAddress: `0x${'b'.repeat(40)}`,
  amountMist: '2500000',
  usdcAmount: '2.5',
  coinType: '0xusdc::usdc::USDC',
  source: 'search-service',
  now,
});
const claimed = (attempt = 1, at = t0): DepositEvent => {
  const { type: _t, now: _n, ...data } = claim();
  return { type: 'DepositClaimed', data: { ...data, attempt, claimedAt: new Date(at).toISOString() } };
};

describe('deposit decider', () => {
  it('claims an unseen digest as attempt 1', () => {
    given()
      .when(claim())
      .then([claimed(1)]);
  });

  it('tells a claim in flight (however old) from a credited one', () => {
    given(claimed())
      .when(claim(t0 + 1000))
      .thenThrows('DEPOSIT_IN_PROGRESS');
    given(claimed())
      .when(claim(t0 + 3_600_000))
      .thenThrows('DEPOSIT_IN_PROGRESS');
    const credited: DepositEvent = {
      type: 'DepositCredited',
      data: { attempt: 1, usdmxAmount: '2.5', evmAddress: `0x${'b'.repeat(40)}` },
    };
    given(claimed(), credited)
      .when(claim(t0 + 5000))
      .thenThrows('DEPOSIT_ALREADY_CREDITED');
  });

  it('leaves a failed credit retryable as a new attempt', () => {
    const failed: DepositEvent = { type: 'DepositCreditFailed', data: { attempt: 1, reason: 'faucet down' } };
    const [retry] = given(claimed(), failed)
      .when(claim(t0 + 5000))
      .events();
    expect(retry).toMatchObject({ type: 'DepositClaimed', data: { attempt: 2 } });
  });

  it('records a success of any attempt once, even after a failure: every attempt funds under one key', () => {
    const failed: DepositEvent = { type: 'DepositCreditFailed', data: { attempt: 1, reason: 'x' } };
    const credit = { type: 'RecordDepositCredit' as const, attempt: 1, usdmxAmount: '2.5', evmAddress: 'x' };
    expect(given(claimed(), failed).when(credit).events()).toHaveLength(1);
    const credited: DepositEvent = {
      type: 'DepositCredited',
      data: { attempt: 1, usdmxAmount: '2.5', evmAddress: 'x' },
    };
    given(claimed(), credited).when(credit).then([]);
  });

  it("refuses another user's claim on a digest", () => {
    const failed: DepositEvent = { type: 'DepositCreditFailed', data: { attempt: 1, reason: 'x' } };
    given(claimed(), failed)
      .when(claim(t0 + 5000, '22222222-2222-4222-8222-222222222222'))
      .thenThrows('CONFLICT');
  });

  it('records the failure of the current attempt only', () => {
    const history = given(claimed());
    expect(
      history.when({ type: 'RecordDepositCredit', attempt: 1, usdmxAmount: '2.5', evmAddress: 'x' }).events(),
    ).toHaveLength(1);
    history.when({ type: 'RecordDepositFailure', attempt: 2, reason: 'x' }).then([]);
    expect(history.when({ type: 'RecordDepositFailure', attempt: 1, reason: 'x' }).events()).toHaveLength(1);
  });

  it('records what came back with a credit whose 2xx answer could not be read', () => {
    given(claimed())
      .when({
        type: 'RecordDepositCredit',
        attempt: 1,
        usdmxAmount: '2.5',
        evmAddress: 'x',
        providerAnswer: 'unexpected answer; body: {"unexpected":true}',
      })
      .then([
        {
          type: 'DepositCredited',
          data: {
            attempt: 1,
            usdmxAmount: '2.5',
            evmAddress: 'x',
            providerAnswer: 'unexpected answer; body: {"unexpected":true}',
          },
        },
      ]);
  });
});

describe('a funding answer', () => {
  it('funded the deposit when it was any 2xx, readable or not', () => {
    expect(fundingOutcome({ answer: 'unreadable', status: 200 })).toBe('funded');
    expect(fundingOutcome({ answer: 'unreadable', status: 201 })).toBe('funded');
  });

  it('failed it only when it was a 4xx refusal', () => {
    for (const status of [400, 401, 403, 404, 422])
      expect(fundingOutcome({ answer: 'status', status })).toBe('refused');
  });

  it('says neither when none came, the provider failed, or a 4xx does not say no', () => {
    expect(fundingOutcome({ answer: 'none' })).toBe('unknown');
    for (const status of [408, 409, 425, 429, 500, 502, 503, 504])
      expect(fundingOutcome({ answer: 'status', status })).toBe('unknown');
  });
});
