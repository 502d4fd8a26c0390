import { describe, expect, it } from 'vitest';
import { UserEvent } from '@shop/contracts';
import { userDecider } from '../src/user/user-decider';
import { UserCommand } from '../src/user/user-commands';
import { userIdForProviderSubject } from '../src/user/user-id';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(userDecider);

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
    given().when({ type: 'RegisterUser', providerSubject: 'p|1', email: 'a@example.com' }).then([registered]);
  });

  it('does nothing when the identity is already registered', () => {
    given(registered).when({ type: 'RegisterUser', providerSubject: 'p|1', email: null }).then([]);
  });

  it('refuses every other command for an unregistered user', () => {
    given().when({ type: 'SetDisplayName', displayName: 'x' }).thenThrows('USER_NOT_FOUND');
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
    given(registered).when({ type: 'SetDisplayName', displayName: 'Ada' }).then([named]);
    const { state } = given(registered, named, addressed, sized, {
      type: 'DisplayNameSet',
      data: { displayName: 'B' },
    });
    expect(state.onboardingStep).toBe(3);
  });

  it('step 2 needs step 1', () => {
    given(registered)
      .when({ type: 'SaveShippingAddress', address })
      .thenThrows('STEP_NOT_REACHED', 'forbidden');
    given(registered, named).when({ type: 'SaveShippingAddress', address }).then([addressed]);
    expect(given(registered, named, addressed).state.onboardingStep).toBe(2);
  });

  it('step 3 needs step 2, and only the first completion says so', () => {
    given(registered, named).when({ type: 'SaveSizes', sizes }).thenThrows('STEP_NOT_REACHED');
    given(registered, named, addressed).when({ type: 'SaveSizes', sizes }).then([sized]);
    given(registered, named, addressed, sized)
      .when({ type: 'SaveSizes', sizes })
      .then([{ type: 'SizesSaved', data: { ...sizes, firstCompletion: false } }]);
    expect(given(registered, named, addressed, sized).state.onboardingStep).toBe(3);
  });
});

describe('user decider: wallet provisioning', () => {
  it('none -> pending, once, even when asked twice', () => {
    given(registered).when({ type: 'StartWalletProvisioning' }).then([started]);
    given(registered, started).when({ type: 'StartWalletProvisioning' }).then([]);
  });

  it('pending -> active for the current attempt only', () => {
    given(registered, started)
      .when({ type: 'CompleteWalletProvisioning', attempt: 1, ...wallets })
      .then([{ type: 'WalletProvisioned', data: wallets }]);
    given(registered, started)
      .when({ type: 'CompleteWalletProvisioning', attempt: 2, ...wallets })
      .then([]);
    const active = given(registered, started, { type: 'WalletProvisioned', data: wallets });
    expect(active.state).toMatchObject({ walletStatus: 'active', ...wallets });
    active.when({ type: 'StartWalletProvisioning' }).then([]);
  });

  it('pending -> failed, and a failed one can be started again', () => {
    const failed: UserEvent = { type: 'WalletProvisioningFailed', data: { reason: 'provider down' } };
    given(registered, started)
      .when({ type: 'FailWalletProvisioning', attempt: 1, reason: 'provider down' })
      .then([failed]);
    given(registered, started, failed)
      .when({ type: 'StartWalletProvisioning' })
      .then([{ type: 'WalletProvisioningStarted', data: { attempt: 2 } }]);
  });
});

describe('closing an account', () => {
  const closed: UserEvent = { type: 'AccountClosed', data: { by: 'user' } };
  const close = (hasOpenOrder = false): UserCommand => ({ type: 'CloseAccount', by: 'user', hasOpenOrder });

  it('closes a registered account', () => {
    given(registered, named)
      .when(close())
      .then([{ type: 'AccountClosed', data: { by: 'user' } }]);
  });

  it('records the sessions whose keys the erasure destroys, and the stream position the list is complete to', () => {
    const sessions = { ids: ['6f1c2a9e-8d0b-4f5e-9a6c-2b7d3e4f5a6b'], through: 41 };
    given(registered, named)
      .when({ type: 'CloseAccount', by: 'operator', hasOpenOrder: false, sessions })
      .then([
        { type: 'AccountClosed', data: { by: 'operator', sessionIds: sessions.ids, sessionsThrough: 41 } },
      ]);
  });

  it('is refused while an order is open', () => {
    given(registered, named).when(close(true)).thenThrows('ORDER_OPEN', 'conflict');
  });

  it('closing again is a no-op', () => {
    given(registered, closed).when(close()).then([]);
  });

  it('a closed account takes no command: not a new login, not a new name', () => {
    const login: UserCommand = { type: 'RegisterUser', providerSubject: 'p|1', email: null };
    given(registered, closed).when(login).thenThrows('ACCOUNT_CLOSED', 'forbidden');
    const rename: UserCommand = { type: 'SetDisplayName', displayName: 'Ada' };
    given(registered, closed).when(rename).thenThrows('ACCOUNT_CLOSED');
  });

  it('an unknown user cannot be closed', () => {
    given().when(close()).thenThrows('USER_NOT_FOUND');
  });
});
