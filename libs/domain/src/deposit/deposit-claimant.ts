import { canonicalAddress } from '../payment/payment-terms';
import { UserState } from '../user/user-state';
import { depositUserNotFound, depositWalletMismatch, depositWalletNotProvisioned } from './deposit-refusals';

/**
 * Refuses crediting `user` a deposit paid from `payer` unless the user exists, the payer is
 * their own Sui wallet and their wallets are provisioned. The sender check comes before "not
 * provisioned yet": that one is asked again later, so a confirmation naming someone whose
 * wallet is pending, but known and not the payer's, would otherwise stay open and keep the
 * digest from the real payer; refused for good, it releases the digest at once.
 */
export function assertDepositClaimant(
  user: Pick<UserState, 'registered' | 'walletStatus' | 'suiAddress' | 'evmAddress'>,
  payer: string,
  mismatch: string,
): asserts user is typeof user & { suiAddress: string; evmAddress: string } {
  if (!user.registered) throw depositUserNotFound();
  if (user.suiAddress !== null && canonicalAddress(user.suiAddress) !== canonicalAddress(payer)) {
    throw depositWalletMismatch(mismatch);
  }
  if (user.walletStatus !== 'active' || user.suiAddress === null || user.evmAddress === null) {
    throw depositWalletNotProvisioned();
  }
}
