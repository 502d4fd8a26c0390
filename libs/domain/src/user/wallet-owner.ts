import { UserState } from './user-state';

const devSubjectPrefix = 'dev|';

/** The provider subject of a dev-login identity: no provider ever issues one like it. */
export function devProviderSubject(email: string): string {
  return `${devSubjectPrefix}${email.toLowerCase()}`;
}

/**
 * The email a user's provider wallet is keyed by, or null to key it by the user's own id. Only
 * an email the provider vouched for (a provider session's token) names a person's wallet: a dev
 * login's email is whatever was typed, so keyed by it, a dev login with someone's email would
 * open that person's provider wallet.
 */
export function walletEmailOf(state: Pick<UserState, 'email' | 'providerSubject'>): string | null {
  if (!state.providerSubject || state.providerSubject.startsWith(devSubjectPrefix)) return null;
  return state.email;
}
