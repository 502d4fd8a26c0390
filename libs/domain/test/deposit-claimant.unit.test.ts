import { describe, expect, it } from 'vitest';
import { assertDepositClaimant } from '../src/deposit/deposit-claimant';
import { DomainError } from '../src/domain-error';

const full = (hex: string) => `0x${hex.padStart(64, '0')}`;
const payer = full('b0b');
const user = (over: Partial<Parameters<typeof assertDepositClaimant>[0]> = {}) => ({
  registered: true,
  walletStatus: 'active' as const,
  suiAddress: payer,
  evmAddress: `0x${'e'.repeat(40)}`,
  ...over,
});
const codeOf = (run: () => void) => {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof DomainError ? error.code : 'not a refusal';
  }
};

describe('who a verified payment may be credited to', () => {
  it('lets through the user whose provisioned wallet sent it, in any spelling of the address', () => {
    expect(codeOf(() => assertDepositClaimant(user(), '0xb0b', 'not yours'))).toBeNull();
  });

  it('refuses for good a user whose known wallet did not send it, before "not provisioned yet"', () => {
    for (const walletStatus of ['pending', 'failed', 'active'] as const) {
      expect(
        codeOf(() =>
          assertDepositClaimant(
            user({ walletStatus, suiAddress: full('5e4d'), evmAddress: null }),
            payer,
            'not yours',
          ),
        ),
      ).toBe('WALLET_MISMATCH');
    }
  });

  it('asks again later only while the user has no Sui wallet to compare, or the EVM one is missing', () => {
    expect(
      codeOf(() =>
        assertDepositClaimant(
          user({ walletStatus: 'pending', suiAddress: null, evmAddress: null }),
          payer,
          '',
        ),
      ),
    ).toBe('WALLET_NOT_PROVISIONED');
    expect(
      codeOf(() => assertDepositClaimant(user({ walletStatus: 'failed', evmAddress: null }), payer, '')),
    ).toBe('WALLET_NOT_PROVISIONED');
  });

  it('refuses a user who does not exist', () => {
    expect(codeOf(() => assertDepositClaimant(user({ registered: false }), payer, ''))).toBe(
      'USER_NOT_FOUND',
    );
  });
});
