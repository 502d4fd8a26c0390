import { Kysely } from 'kysely';
import { ReadModelDatabase } from '../read-model-database';
import { SizesRow, UsersTable } from './users-table';

/** A user as the gateway's profile route answers it (the `UserProfile` schema). */
export interface UserProfileView {
  userId: string;
  email: string | null;
  walletAddress: string | null;
  walletStatus: UsersTable['wallet_status'];
  onboardingStep: number;
  evmAddress: string | null;
  sizes: SizesRow | null;
}

export async function userProfile(
  db: Kysely<ReadModelDatabase>,
  userId: string,
): Promise<UserProfileView | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['user_id', 'email', 'sui_address', 'wallet_status', 'onboarding_step', 'evm_address', 'sizes'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    userId: row.user_id,
    email: row.email,
    walletAddress: row.sui_address,
    walletStatus: row.wallet_status,
    onboardingStep: row.onboarding_step,
    evmAddress: row.evm_address,
    sizes: row.sizes
      ? {
          topsSize: row.sizes.topsSize,
          bottomsSize: row.sizes.bottomsSize,
          footwearSize: row.sizes.footwearSize,
        }
      : null,
  };
}

/** The last onboarding step the user completed (0 to 3); undefined for a user not (yet) projected. */
export async function onboardingStepOf(
  db: Kysely<ReadModelDatabase>,
  userId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('users')
    .select('onboarding_step')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.onboarding_step;
}
