import { JSONColumnType, Migration } from 'kysely';
import { Timestamp } from '../timestamp';
import * as users from './migrations/0002-users';

export interface UsersTable {
  user_id: string;
  provider_subject: string;
  email: string | null;
  display_name: string | null;
  onboarding_step: number;
  shipping_address: JSONColumnType<ShippingAddressRow | null>;
  sizes: JSONColumnType<SizesRow | null>;
  wallet_status: 'none' | 'pending' | 'active' | 'failed';
  wallet_error: string | null;
  sui_address: string | null;
  evm_address: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

export interface ShippingAddressRow {
  firstName: string;
  lastName: string;
  street: string;
  apt: string | null;
  country: string;
  city: string;
  state: string | null;
  zip: string;
}

export interface SizesRow {
  topsSize: string;
  bottomsSize: string;
  footwearSize: string;
}

/** Named as recorded in every existing schema's migration table. */
export const usersMigrations: Record<string, Migration> = {
  '0002-users': users,
};
