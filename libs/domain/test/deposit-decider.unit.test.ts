import { describe, expect, it } from 'vitest';
import { DepositEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { ClaimDeposit, depositDecider, STALE_CLAIM_MS } from '../src/deposit/deposit-decider';
import { DomainError } from '../src/domain-error';

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
const given = (...events: DepositEvent[]) => fold(depositDecider, events);
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return (error as DomainError).message;
  }
};

describe('deposit decider', () => {
  it('claims an unseen digest as attempt 1', () => {
    expect(depositDecider.decide(claim(), given())).toEqual([claimed(1)]);
  });

  it('refuses a second claim while the first is in flight, and any claim once credited', () => {
    expect(code(() => depositDecider.decide(claim(t0 + 1000), given(claimed())))).toBe(
      'Deposit already processed',
    );
    const credited: DepositEvent = {
      type: 'DepositCredited',
      data: { attempt: 1, usdmxAmount: '2.5', evmAddress: `0x${'b'.repeat(40)}` },
    };
    expect(
      code(() => depositDecider.decide(claim(t0 + STALE_CLAIM_MS * 10), given(claimed(), credited))),
    ).toBe('Deposit already processed');
  });

  it('leaves a failed credit retryable as a new attempt', () => {
    const failed: DepositEvent = { type: 'DepositCreditFailed', data: { attempt: 1, reason: 'faucet down' } };
    const [retry] = depositDecider.decide(claim(t0 + 5000), given(claimed(), failed));
    expect(retry).toMatchObject({ type: 'DepositClaimed', data: { attempt: 2 } });
  });

  it('resumes a stale claim under the same attempt, so the funding call repeats idempotently', () => {
    const [resumed] = depositDecider.decide(claim(t0 + STALE_CLAIM_MS + 1), given(claimed()));
    expect(resumed).toMatchObject({ type: 'DepositClaimed', data: { attempt: 1 } });
  });

  it("refuses another user's claim on a digest", () => {
    const failed: DepositEvent = { type: 'DepositCreditFailed', data: { attempt: 1, reason: 'x' } };
    expect(
      code(() =>
        depositDecider.decide(
          claim(t0 + 5000, '22222222-2222-4222-8222-222222222222'),
          given(claimed(), failed),
        ),
      ),
    ).toBe('Deposit already processed');
  });

  it('records the outcome of the current attempt only', () => {
    const state = given(claimed());
    expect(
      depositDecider.decide(
        { type: 'RecordDepositCredit', attempt: 1, usdmxAmount: '2.5', evmAddress: 'x' },
        state,
      ),
    ).toHaveLength(1);
    expect(
      depositDecider.decide(
        { type: 'RecordDepositCredit', attempt: 2, usdmxAmount: '2.5', evmAddress: 'x' },
        state,
      ),
    ).toEqual([]);
    expect(
      depositDecider.decide({ type: 'RecordDepositFailure', attempt: 1, reason: 'x' }, state),
    ).toHaveLength(1);
  });
});
