import { ShippingAddress, Sizes } from './onboarding-fields';

export interface RegisterUser {
  type: 'RegisterUser';
  providerSubject: string;
  email: string | null;
}

export interface SetDisplayName {
  type: 'SetDisplayName';
  displayName: string;
}

export interface SaveShippingAddress {
  type: 'SaveShippingAddress';
  address: ShippingAddress;
}

export interface SaveSizes {
  type: 'SaveSizes';
  sizes: Sizes;
}

export interface StartWalletProvisioning {
  type: 'StartWalletProvisioning';
}

export interface CompleteWalletProvisioning {
  type: 'CompleteWalletProvisioning';
  attempt: number;
  suiAddress: string;
  evmAddress: string;
}

export interface FailWalletProvisioning {
  type: 'FailWalletProvisioning';
  attempt: number;
  reason: string;
}

/**
 * `hasOpenOrder` is what the orders read model says once it has caught up with the stream: an
 * account with an order in flight stays open. `sessions` names the chat sessions whose keys the
 * erasure destroys, complete up to stream sequence `through`.
 */
export interface CloseAccount {
  type: 'CloseAccount';
  by: 'user' | 'operator';
  hasOpenOrder: boolean;
  sessions?: { ids: string[]; through: number };
}

export type UserCommand =
  | RegisterUser
  | SetDisplayName
  | SaveShippingAddress
  | SaveSizes
  | StartWalletProvisioning
  | CompleteWalletProvisioning
  | FailWalletProvisioning
  | CloseAccount;
