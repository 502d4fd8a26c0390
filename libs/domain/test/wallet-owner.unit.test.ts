import fc from 'fast-check';
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

  it("is never a dev login's, for any email typed in any case, and always a provider identity's own", () => {
    const casing = fc
      .emailAddress()
      .chain((email) => fc.boolean().map((upper) => (upper ? email.toUpperCase() : email)));
    fc.assert(
      fc.property(casing, fc.string({ minLength: 1 }), (email, subject) => {
        expect(walletEmailOf({ providerSubject: devProviderSubject(email), email })).toBeNull();
        const provider = subject.startsWith('dev|') ? `oidc|${subject}` : subject;
        expect(walletEmailOf({ providerSubject: provider, email })).toBe(email);
      }),
    );
  });

  it('is none before registration', () => {
    expect(walletEmailOf({ providerSubject: null, email: null })).toBeNull();
  });
});
