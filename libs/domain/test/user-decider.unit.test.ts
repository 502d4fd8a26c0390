import { describe, expect, it } from 'vitest';
import { UserEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { DomainError } from '../src/domain-error';
import { userDecider } from '../src/user/user-decider';
import { UserCommand } from '../src/user/user-commands';
import { userIdForProviderSubject } from '../src/user/user-id';

const given = (...events: UserEvent[]) => fold(userDecider, events);
const when = (command: UserCommand, ...history: UserEvent[]) =>
  userDecider.decide(command, given(...history));
const refusal = (command: UserCommand, ...history: UserEvent[]) => {
  try {
    when(command, ...history);
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

const registered: UserEvent = {
  type: 'UserRegistered',
  data: { providerSubject: 'p|1', email: 'a@example.com' },
};
const named: UserEvent = { type: 'DisplayNameSet', data: { displayName: 'Ada' } };
const address = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Main Street',
  country: 'US' as const,
  city: 'Austin',
  zip: '78701',
};
const addressed: UserEvent = {
  type: 'ShippingAddressSaved',
  data: { ...address, apt: null, state: null },
};
const sizes = { topsSize: 'M' as const, bottomsSize: '32', footwearSize: '42' };
const sized: UserEvent = { type: 'SizesSaved', data: { ...sizes, firstCompletion: true } };
const started: UserEvent = { type: 'WalletProvisioningStarted', data: { attempt: 1 } };
const wallets = { suiAddress: `0x${'a'.repeat(64)}`, evmAddress: `0x${'b'.repeat(40)}` };

describe('user decider: registration', () => {
  it('registers an unknown identity', () => {
    expect(when({ type: 'RegisterUser', providerSubject: 'p|1', email: 'a@example.com' })).toEqual([
      registered,
    ]);
  });

  it('does nothing when the identity is already registered', () => {
    expect(when({ type: 'RegisterUser', providerSubject: 'p|1', email: null }, registered)).toEqual([]);
  });

  it('refuses every other command for an unregistered user', () => {
    expect(refusal({ type: 'SetDisplayName', displayName: 'x' }).code).toBe('USER_NOT_FOUND');
  });

  it('derives one stable UUID per provider subject', () => {
    const id = userIdForProviderSubject('p|1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(userIdForProviderSubject('p|1')).toBe(id);
    expect(userIdForProviderSubject('p|2')).not.toBe(id);
  });
});

describe('user decider: onboarding state table', () => {
  it('step 1 from any step, and the step never decreases', () => {
    expect(when({ type: 'SetDisplayName', displayName: 'Ada' }, registered)).toEqual([named]);
    const state = given(registered, named, addressed, sized, {
      type: 'DisplayNameSet',
      data: { displayName: 'B' },
    });
    expect(state.onboardingStep).toBe(3);
  });

  it('step 2 needs step 1', () => {
    const error = refusal({ type: 'SaveShippingAddress', address }, registered);
    expect([error.kind, error.code]).toEqual(['forbidden', 'STEP_NOT_REACHED']);
    expect(when({ type: 'SaveShippingAddress', address }, registered, named)).toEqual([addressed]);
    expect(given(registered, named, addressed).onboardingStep).toBe(2);
  });

  it('step 3 needs step 2, and only the first completion says so', () => {
    expect(refusal({ type: 'SaveSizes', sizes }, registered, named).code).toBe('STEP_NOT_REACHED');
    expect(when({ type: 'SaveSizes', sizes }, registered, named, addressed)).toEqual([sized]);
    expect(when({ type: 'SaveSizes', sizes }, registered, named, addressed, sized)).toEqual([
      { type: 'SizesSaved', data: { ...sizes, firstCompletion: false } },
    ]);
    expect(given(registered, named, addressed, sized).onboardingStep).toBe(3);
  });
});

describe('user decider: wallet provisioning', () => {
  it('none -> pending, once, even when asked twice', () => {
    expect(when({ type: 'StartWalletProvisioning' }, registered)).toEqual([started]);
    expect(when({ type: 'StartWalletProvisioning' }, registered, started)).toEqual([]);
  });

  it('pending -> active for the current attempt only', () => {
    expect(when({ type: 'CompleteWalletProvisioning', attempt: 1, ...wallets }, registered, started)).toEqual(
      [{ type: 'WalletProvisioned', data: wallets }],
    );
    expect(when({ type: 'CompleteWalletProvisioning', attempt: 2, ...wallets }, registered, started)).toEqual(
      [],
    );
    const active = given(registered, started, { type: 'WalletProvisioned', data: wallets });
    expect(active).toMatchObject({ walletStatus: 'active', ...wallets });
    expect(userDecider.decide({ type: 'StartWalletProvisioning' }, active)).toEqual([]);
  });

  it('pending -> failed, and a failed one can be started again', () => {
    const failed: UserEvent = { type: 'WalletProvisioningFailed', data: { reason: 'provider down' } };
    expect(
      when({ type: 'FailWalletProvisioning', attempt: 1, reason: 'provider down' }, registered, started),
    ).toEqual([failed]);
    expect(when({ type: 'StartWalletProvisioning' }, registered, started, failed)).toEqual([
      { type: 'WalletProvisioningStarted', data: { attempt: 2 } },
    ]);
  });
});

describe('closing an account', () => {
  const closed: UserEvent = { type: 'AccountClosed', data: { by: 'user' } };
  const close = (hasOpenOrder = false): UserCommand => ({ type: 'CloseAccount', by: 'user', hasOpenOrder });

  it('closes a registered account', () => {
    expect(when(close(), registered, named)).toEqual([{ type: 'AccountClosed', data: { by: 'user' } }]);
  });

  it('is refused while an order is open', () => {
    expect(refusal(close(true), registered, named)).toMatchObject({ kind: 'conflict', code: 'ORDER_OPEN' });
  });

  it('closing again is a no-op', () => {
    expect(when(close(), registered, closed)).toEqual([]);
  });

  it('a closed account takes no command: not a new login, not a new name', () => {
    const login: UserCommand = { type: 'RegisterUser', providerSubject: 'p|1', email: null };
    expect(refusal(login, registered, closed)).toMatchObject({ kind: 'forbidden', code: 'ACCOUNT_CLOSED' });
    const rename: UserCommand = { type: 'SetDisplayName', displayName: 'Ada' };
    expect(refusal(rename, registered, closed)).toMatchObject({ code: 'ACCOUNT_CLOSED' });
  });

  it('an unknown user cannot be closed', () => {
    expect(refusal(close())).toMatchObject({ code: 'USER_NOT_FOUND' });
  });
});
