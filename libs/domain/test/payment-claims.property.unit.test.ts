import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PaymentEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { assertDepositClaimant } from '../src/deposit/deposit-claimant';
import { DomainError } from '../src/domain-error';
import { ConfirmationDelivery } from '../src/payment/payment-commands';
import { confirmationVerdict } from '../src/payment/confirmation-verdict';
import { paymentDecider } from '../src/payment/payment-decider';
import { PaymentState } from '../src/payment/payment-state';
import { ObservedTransaction, PaymentTerms } from '../src/payment/payment-terms';
import { UserState } from '../src/user/user-state';

/**
 * The search service's payment decider and the gateway's claimant rule together, against a
 * stranger who names other users for someone's payment: whatever the order of claims, retries,
 * backend outages and wallet provisioning, only the user whose wallet sent the payment is ever
 * credited, and that user's verification is never refused while the payment is not theirs.
 */

const full = (hex: string) => `0x${hex.padStart(64, '0')}`;
const merchant = full('a11ce');
const payerAddress = full('b0b');
const terms: PaymentTerms = {
  network: 'testnet',
  merchant,
  coinType: '0x2::sui::SUI',
  minimumAmount: 1_000n,
};
const transaction: ObservedTransaction = {
  status: 'success',
  error: null,
  sender: payerAddress,
  balanceChanges: [
    { owner: payerAddress, coinType: '0x2::sui::SUI', amount: -2_000n },
    { owner: merchant, coinType: '0x2::sui::SUI', amount: 1_500n },
  ],
};

/** The payer; users a stranger names (their wallets are others'); a user who never gets one. */
const users = ['payer', 'victim', 'stranger', 'ghost'] as const;
type Who = (typeof users)[number];
const walletOf: Record<Who, string | null> = {
  payer: payerAddress,
  victim: full('71c7'),
  stranger: full('5e4d'),
  ghost: null,
};

/** How far a user's wallets are provisioned: a Sui wallet may exist while the EVM one failed. */
type Provisioning = 'none' | 'pending' | 'sui only' | 'active';

type Step =
  | { kind: 'verify'; who: Who }
  | { kind: 'reconcile' }
  | { kind: 'provision'; who: Who; stage: Provisioning }
  | { kind: 'backend'; up: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('verify' as const), who: fc.constantFrom(...users) }),
  fc.constant({ kind: 'reconcile' as const }),
  fc.record({
    kind: fc.constant('provision' as const),
    who: fc.constantFrom(...users),
    stage: fc.constantFrom<Provisioning>('none', 'pending', 'sui only', 'active'),
  }),
  fc.record({ kind: fc.constant('backend' as const), up: fc.boolean() }),
);

function userState(who: Who, stage: Provisioning): UserState {
  const wallet = walletOf[who];
  const sui = wallet !== null && (stage === 'sui only' || stage === 'active') ? wallet : null;
  return {
    registered: true,
    closed: false,
    providerSubject: who,
    email: null,
    onboardingStep: 3,
    walletStatus:
      sui === null ? (stage === 'none' ? 'none' : 'pending') : stage === 'active' ? 'active' : 'failed',
    walletAttempts: 1,
    suiAddress: sui,
    evmAddress: sui !== null && stage === 'active' ? `0x${'e'.repeat(40)}` : null,
    shippingAddress: null,
  };
}

/** The gateway: credits a digest once, to a claimant the rule lets through. */
class Gateway {
  up = true;
  creditedTo: Who | null = null;
  readonly credits: Who[] = [];
  readonly provisioning: Record<Who, Provisioning> = {
    payer: 'none',
    victim: 'pending',
    stranger: 'active',
    ghost: 'pending',
  };

  confirm(who: Who, payer: string): ConfirmationDelivery {
    if (!this.up)
      return { acknowledged: false, refused: false, reason: 'unreachable', backendStatus: null, attempts: 4 };
    let status = 200;
    let code: string | undefined;
    if (this.creditedTo !== null) {
      [status, code] = this.creditedTo === who ? [409, 'DEPOSIT_ALREADY_CREDITED'] : [409, 'CONFLICT'];
    } else {
      try {
        assertDepositClaimant(userState(who, this.provisioning[who]), payer, 'not your wallet');
        this.creditedTo = who;
        this.credits.push(who);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        [status, code] = [400, error.code];
      }
    }
    const verdict = confirmationVerdict(status, code, status === 200);
    if (verdict === 'acknowledged') return { acknowledged: true, backendStatus: status, attempts: 1 };
    if (verdict === 'refused') {
      return { acknowledged: false, refused: true, reason: code ?? '', backendStatus: status, attempts: 1 };
    }
    return { acknowledged: false, refused: false, reason: code ?? '', backendStatus: status, attempts: 1 };
  }
}

/** The search service's payment of one digest: its history, decided on and delivered as the service does. */
class Payment {
  private readonly history: PaymentEvent[] = [];
  private next = 0;

  constructor(private readonly gateway: Gateway) {}

  get state(): PaymentState {
    return fold(paymentDecider, this.history);
  }

  /** POST /api/payment/verify by `who`: the claim, then the delivery of whatever awaits one. */
  verify(who: Who): { refused: string | null } {
    try {
      this.record(
        paymentDecider.decide(
          {
            type: 'VerifyPayment',
            paymentId: `payment-${(this.next += 1)}`,
            userId: who,
            terms,
            ...(this.state.status === 'NEW' ? { transaction } : {}),
          },
          this.state,
        ),
      );
    } catch (error) {
      if (error instanceof DomainError) return { refused: error.code };
      throw error;
    }
    this.deliver();
    return { refused: null };
  }

  /** The reconciler's round, or a verification's delivery. */
  deliver(): void {
    const { status, amount, userId, payer } = this.state;
    if (status !== 'PENDING' || amount === null) return;
    const delivery = this.gateway.confirm(userId as Who, payer!);
    this.record(paymentDecider.decide({ type: 'RecordConfirmationDelivery', delivery }, this.state));
  }

  private record(events: PaymentEvent[]): void {
    this.history.push(...events);
  }
}

describe('payment claims against a stranger', () => {
  it("credit only the payer's user, and never keep the payer out", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const gateway = new Gateway();
        const payment = new Payment(gateway);
        for (const s of steps) {
          if (s.kind === 'backend') gateway.up = s.up;
          else if (s.kind === 'provision') gateway.provisioning[s.who] = s.stage;
          else if (s.kind === 'reconcile') payment.deliver();
          else {
            const { refused } = payment.verify(s.who);
            if (s.who === 'payer') {
              // Refused only a digest credited, which can only be to the payer.
              expect(refused).toBeNull();
              if (gateway.up && gateway.provisioning.payer === 'active') {
                expect(payment.state).toMatchObject({ status: 'SUCCESS', userId: 'payer' });
              }
            }
          }
          expect(gateway.credits.every((who) => who === 'payer')).toBe(true);
          expect(gateway.credits.length).toBeLessThanOrEqual(1);
        }
        // Once the payer's wallet is there and the backend answers, the payer's one retry is enough.
        gateway.up = true;
        gateway.provisioning.payer = 'active';
        expect(payment.verify('payer').refused).toBeNull();
        expect(payment.state).toMatchObject({ status: 'SUCCESS', userId: 'payer' });
        expect(gateway.credits).toEqual(['payer']);
      }),
      { numRuns: 500 },
    );
  });
});
