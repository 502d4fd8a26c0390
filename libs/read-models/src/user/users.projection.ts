import { Selectable } from 'kysely';
import { RecordedEvent, UserEvent } from '@shop/contracts';
import { applyRowFold, RowFoldSpec, rowFoldBulk } from '@shop/projections';
import { ReadModelProjection } from '../read-model-database';
import { UsersTable } from './users-table';

type UserRow = Selectable<UsersTable>;

const maxStep = (row: UserRow, step: number) => Math.max(row.onboarding_step, step);

function foldUser(row: UserRow | undefined, recorded: RecordedEvent): UserRow | null | undefined {
  const event = recorded as RecordedEvent<UserEvent>;
  const at = new Date(event.occurredAt);
  if (event.type === 'UserRegistered') {
    if (row) return row;
    return {
      user_id: event.aggregateId,
      provider_subject: event.data.providerSubject,
      email: event.data.email,
      display_name: null,
      onboarding_step: 0,
      shipping_address: null,
      sizes: null,
      wallet_status: 'none',
      wallet_error: null,
      sui_address: null,
      evm_address: null,
      created_at: at,
      updated_at: at,
      version: event.sequence,
    };
  }
  if (!row) throw new Error(`${event.type} for user ${event.aggregateId}, who is not registered`);
  const next = { ...row, updated_at: at, version: event.sequence };
  switch (event.type) {
    case 'DisplayNameSet':
      return { ...next, display_name: event.data.displayName, onboarding_step: maxStep(row, 1) };
    case 'ShippingAddressSaved':
      return { ...next, shipping_address: event.data, onboarding_step: maxStep(row, 2) };
    case 'SizesSaved': {
      const { topsSize, bottomsSize, footwearSize } = event.data;
      return { ...next, sizes: { topsSize, bottomsSize, footwearSize }, onboarding_step: 3 };
    }
    case 'WalletProvisioningStarted':
      return { ...next, wallet_status: 'pending', wallet_error: null };
    case 'WalletProvisioned':
      return {
        ...next,
        wallet_status: 'active',
        wallet_error: null,
        sui_address: event.data.suiAddress,
        evm_address: event.data.evmAddress,
      };
    case 'WalletProvisioningFailed':
      return { ...next, wallet_status: 'failed', wallet_error: event.data.reason };
    case 'AccountClosed':
      return null;
  }
}

const usersRowFold: RowFoldSpec<UserRow> = {
  table: 'users',
  key: 'user_id',
  keyOf: (event) => (event.aggregate === 'user' ? event.aggregateId : null),
  fold: foldUser,
};

export const usersProjection: ReadModelProjection = {
  name: 'users',
  aggregates: ['user'],
  tables: ['users'],
  // A row is one user aggregate's fold.
  partitioned: true,
  apply: (db, events, mode) => applyRowFold(db, usersRowFold, events, mode),
  bulk: () => rowFoldBulk(usersRowFold),
};
