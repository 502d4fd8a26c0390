import { UserEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';
import {
  CloseAccount,
  CompleteWalletProvisioning,
  FailWalletProvisioning,
  RegisterUser,
  SaveShippingAddress,
  SaveSizes,
  SetDisplayName,
  UserCommand,
} from './user-commands';
import { initialUserState, UserState } from './user-state';

const stepNotReached = (needed: number) =>
  new DomainError('forbidden', 'STEP_NOT_REACHED', `Onboarding step ${needed} must be completed first`);

export const userNotFound = () =>
  new DomainError('not_found', 'USER_NOT_FOUND', 'No user record for this session');

export const accountClosed = () =>
  new DomainError('forbidden', 'ACCOUNT_CLOSED', 'This account was closed and its data erased');

export const orderOpen = () =>
  new DomainError(
    'conflict',
    'ORDER_OPEN',
    'An order is still open; close the account once it is delivered or cancelled',
  );

function mustBeRegistered(state: UserState): void {
  if (!state.registered) throw userNotFound();
}

function registerUser(command: RegisterUser, state: UserState): UserEvent[] {
  // A second first-session (a retry, or a concurrent request that lost the race) is a no-op.
  if (state.registered) return [];
  return [
    { type: 'UserRegistered', data: { providerSubject: command.providerSubject, email: command.email } },
  ];
}

function setDisplayName(command: SetDisplayName, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  return [{ type: 'DisplayNameSet', data: { displayName: command.displayName } }];
}

function saveShippingAddress(command: SaveShippingAddress, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (state.onboardingStep < 1) throw stepNotReached(1);
  const { apt, state: region, ...rest } = command.address;
  return [{ type: 'ShippingAddressSaved', data: { ...rest, apt: apt ?? null, state: region ?? null } }];
}

function saveSizes(command: SaveSizes, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (state.onboardingStep < 2) throw stepNotReached(2);
  return [{ type: 'SizesSaved', data: { ...command.sizes, firstCompletion: state.onboardingStep < 3 } }];
}

function startWalletProvisioning(state: UserState): UserEvent[] {
  mustBeRegistered(state);
  // Pending or active: someone already started it, and a wallet is provisioned once.
  if (state.walletStatus === 'pending' || state.walletStatus === 'active') return [];
  return [{ type: 'WalletProvisioningStarted', data: { attempt: state.walletAttempts + 1 } }];
}

function completeWalletProvisioning(command: CompleteWalletProvisioning, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (state.walletStatus !== 'pending' || command.attempt !== state.walletAttempts) return [];
  return [
    {
      type: 'WalletProvisioned',
      data: { suiAddress: command.suiAddress, evmAddress: command.evmAddress },
    },
  ];
}

function failWalletProvisioning(command: FailWalletProvisioning, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (state.walletStatus !== 'pending' || command.attempt !== state.walletAttempts) return [];
  return [{ type: 'WalletProvisioningFailed', data: { reason: command.reason.slice(0, 500) } }];
}

function closeAccount(command: CloseAccount, state: UserState): UserEvent[] {
  mustBeRegistered(state);
  if (command.hasOpenOrder) throw orderOpen();
  const { sessions } = command;
  const erasing = sessions ? { sessionIds: sessions.ids, sessionsThrough: sessions.through } : {};
  return [{ type: 'AccountClosed', data: { by: command.by, ...erasing } }];
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: initialUserState,

  decide(command, state) {
    if (state.closed) {
      // Closing twice (a retry, an operator after the user) is a no-op; anything else is refused.
      if (command.type === 'CloseAccount') return [];
      throw accountClosed();
    }
    switch (command.type) {
      case 'RegisterUser':
        return registerUser(command, state);
      case 'SetDisplayName':
        return setDisplayName(command, state);
      case 'SaveShippingAddress':
        return saveShippingAddress(command, state);
      case 'SaveSizes':
        return saveSizes(command, state);
      case 'StartWalletProvisioning':
        return startWalletProvisioning(state);
      case 'CompleteWalletProvisioning':
        return completeWalletProvisioning(command, state);
      case 'FailWalletProvisioning':
        return failWalletProvisioning(command, state);
      case 'CloseAccount':
        return closeAccount(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return {
          ...state,
          registered: true,
          providerSubject: event.data.providerSubject,
          email: event.data.email,
        };
      case 'DisplayNameSet':
        return { ...state, onboardingStep: state.onboardingStep >= 1 ? state.onboardingStep : 1 };
      case 'ShippingAddressSaved':
        return {
          ...state,
          shippingAddress: event.data,
          onboardingStep: state.onboardingStep >= 2 ? state.onboardingStep : 2,
        };
      case 'SizesSaved':
        return { ...state, onboardingStep: 3 };
      case 'WalletProvisioningStarted':
        return { ...state, walletStatus: 'pending', walletAttempts: event.data.attempt };
      case 'WalletProvisioned':
        return {
          ...state,
          walletStatus: 'active',
          suiAddress: event.data.suiAddress,
          evmAddress: event.data.evmAddress,
        };
      case 'WalletProvisioningFailed':
        return { ...state, walletStatus: 'failed' };
      case 'AccountClosed':
        return { ...state, closed: true };
    }
  },
};
