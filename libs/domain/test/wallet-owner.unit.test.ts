import { describe, expect, it } from 'vitest';
import { devProviderSubject, walletEmailOf } from '../src/user/wallet-owner';

describe('the email a provider wallet is keyed by', () => {
  it("is the provider identity's own email", () => {
    expect(walletEmailOf({ providerSubject: 'user_2x9', email: 'ada@example.com' })).toBe('ada@example.com');
  });

  it('is never the email a dev login was given, whatever its case', () => {
    for (const typed of ['ada@example.com', 'Ada@Example.com']) {
      expect(walletEmailOf({ providerSubject: devProviderSubject(typed), email: typed })).toBeNull();
    }
  });

  it('is none before registration', () => {
    expect(walletEmailOf({ providerSubject: null, email: null })).toBeNull();
  });
});
