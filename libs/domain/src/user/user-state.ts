export interface SavedShippingAddress {
  firstName: string;
  lastName: string;
  street: string;
  apt: string | null;
  country: string;
  city: string;
  state: string | null;
  zip: string;
}

export type WalletStatus = 'none' | 'pending' | 'active' | 'failed';

export interface UserState {
  registered: boolean;
  /** Closed is final: the user's data key is destroyed, so nothing personal can be written again. */
  closed: boolean;
  /** Who the identity provider (or dev login) says this user is; the user id is derived from it. */
  providerSubject: string | null;
  email: string | null;
  onboardingStep: 0 | 1 | 2 | 3;
  walletStatus: WalletStatus;
  walletAttempts: number;
  suiAddress: string | null;
  evmAddress: string | null;
  shippingAddress: SavedShippingAddress | null;
}

export const initialUserState = (): UserState => ({
  registered: false,
  closed: false,
  providerSubject: null,
  email: null,
  onboardingStep: 0,
  walletStatus: 'none',
  walletAttempts: 0,
  suiAddress: null,
  evmAddress: null,
  shippingAddress: null,
});
