import { Inject, Injectable } from '@nestjs/common';
import { getAddress } from 'viem';
import { RecordedEvent, systemActor, UserEvent } from '@shop/contracts';
import { emailOwner, ProviderClient } from '@shop/provider';
import { Reaction } from '@shop/reactions';
import { WalletKeyVault } from '@shop/wallets';
import { Aggregates } from '@shop/commands';
import { walletEmailOf } from '@shop/domain';
import { PROVIDER, WALLET_VAULT } from '../infrastructure/tokens';

/**
 * Registration starts provisioning; a started attempt creates the Sui keypair (kept in the
 * vault, never in an event) and the EVM wallet at the provider, then records the outcome.
 * Both steps are idempotent: the vault and the provider return the same wallet on a repeat,
 * and the decider ignores outcomes of an attempt that is no longer pending.
 */
@Injectable()
export class WalletProvisioningReaction implements Reaction {
  readonly name = 'wallet-provisioning';
  readonly aggregate = 'user' as const;
  readonly eventTypes = ['UserRegistered', 'WalletProvisioningStarted'];

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(WALLET_VAULT) private readonly vault: WalletKeyVault | null,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<UserEvent>;
    const userId = event.aggregateId;
    const meta = (step: string) => ({
      actor: systemActor,
      commandId: `${step}:${event.id}`,
      causationId: event.id,
      correlationId: event.correlationId,
    });
    if (event.type === 'UserRegistered') {
      await this.aggregates.user.execute(userId, { type: 'StartWalletProvisioning' }, meta('wallet-start'));
      return;
    }
    if (event.type !== 'WalletProvisioningStarted') return;
    const attempt = event.data.attempt;
    let outcome;
    try {
      const wallets = await this.provision(userId);
      outcome = { type: 'CompleteWalletProvisioning' as const, attempt, ...wallets };
    } catch (error) {
      outcome = {
        type: 'FailWalletProvisioning' as const,
        attempt,
        reason: error instanceof Error ? error.message : String(error),
      };
    }
    await this.aggregates.user.execute(userId, outcome, meta('wallet-outcome'));
  }

  private async provision(userId: string): Promise<{ suiAddress: string; evmAddress: string }> {
    if (!this.vault) throw new Error('wallet keys cannot be stored: WALLET_ENCRYPTION_KEY is not configured');
    if (!this.provider) throw new Error('the payment provider is not configured (PROVIDER_API_URL)');
    const { state } = await this.aggregates.user.state(userId);
    const suiAddress = await this.vault.suiAddressFor(userId);
    const email = walletEmailOf(state);
    const wallet = await this.provider.createWallet(
      email
        ? { owner: emailOwner(email), adminSigner: { type: 'email', email } }
        : { owner: `userId:${userId}`, adminSigner: { type: 'api-key' } },
    );
    return { suiAddress, evmAddress: getAddress(wallet.address) };
  }
}
