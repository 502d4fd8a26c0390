import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import { migrateSchema, reactionsMigrations } from '@shop/db';
import type { DatabaseHandle, ReactionsDatabase } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import type { Logger } from '@shop/logging';
import {
  lockTimingFor,
  partitionedRunners,
  PostgresReactionParking,
  PostgresReactionPositions,
  ReactionHosts,
  ReactionRunner,
} from '@shop/reactions';
import type { ReactionParking, ReactionPositions } from '@shop/reactions';
import { CONFIG, DATABASE, EVENT_STORE, LOGGER } from './infrastructure/tokens';
import { CartModule } from './cart/cart.module';
import { DepositCreditingReaction } from './deposit/deposit-crediting.reaction';
import { DepositModule } from './deposit/deposit.module';
import { ChainEventsReaction } from './onchain/chain-events.reaction';
import { OnChainCheckoutReaction } from './onchain/onchain-checkout.reaction';
import { OnChainRemovalReaction } from './onchain/onchain-removal.reaction';
import { OrderCartReaction } from './webhooks/order-cart.reaction';
import { ProviderWebhookReaction } from './webhooks/provider-webhook.reaction';
import { WalletProvisioningReaction } from './wallet/wallet-provisioning.reaction';
import { AccountErasureReaction } from './user/account-erasure.reaction';
import { SessionKeyErasureReaction } from './sessions/session-key-erasure.reaction';

const REACTION_PARKING = Symbol('REACTION_PARKING');
const REACTION_POSITIONS = Symbol('REACTION_POSITIONS');

/**
 * Process managers hosted by the gateway. Every instance runs each of them, one active at a
 * time per reaction and partition (the others stand by), so each subject's events are handled
 * in order, and up to STREAM_PARTITIONS gateways share a reaction.
 */
@Module({
  imports: [CartModule, DepositModule],
  providers: [
    WalletProvisioningReaction,
    ProviderWebhookReaction,
    OrderCartReaction,
    ChainEventsReaction,
    OnChainCheckoutReaction,
    OnChainRemovalReaction,
    AccountErasureReaction,
    SessionKeyErasureReaction,
    {
      provide: REACTION_PARKING,
      inject: [CONFIG, DATABASE],
      useFactory: async (config: GatewayConfig, database: DatabaseHandle) => {
        await migrateSchema(database.db as Kysely<unknown>, config.REACTIONS_SCHEMA, reactionsMigrations);
        return new PostgresReactionParking(
          database.db.withSchema(config.REACTIONS_SCHEMA) as unknown as Kysely<ReactionsDatabase>,
        );
      },
    },
    {
      provide: REACTION_POSITIONS,
      // After the parking's provider, which migrates the schema both live in.
      inject: [CONFIG, DATABASE, REACTION_PARKING],
      useFactory: (config: GatewayConfig, database: DatabaseHandle) =>
        new PostgresReactionPositions(
          database.db.withSchema(config.REACTIONS_SCHEMA) as unknown as Kysely<ReactionsDatabase>,
        ),
    },
  ],
})
export class ReactionsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly runners: ReactionRunner[];
  private readonly hosts: ReactionHosts | undefined;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(REACTION_PARKING) parking: ReactionParking,
    @Inject(REACTION_POSITIONS) positions: ReactionPositions,
    walletProvisioning: WalletProvisioningReaction,
    providerWebhooks: ProviderWebhookReaction,
    orderCart: OrderCartReaction,
    chainEvents: ChainEventsReaction,
    onChainCheckout: OnChainCheckoutReaction,
    onChainRemoval: OnChainRemovalReaction,
    depositCrediting: DepositCreditingReaction,
    accountErasure: AccountErasureReaction,
    sessionKeyErasure: SessionKeyErasureReaction,
  ) {
    const reactions = [
      walletProvisioning,
      depositCrediting,
      providerWebhooks,
      orderCart,
      accountErasure,
      sessionKeyErasure,
      ...(config.CHAIN_CONTRACT_ADDRESS ? [chainEvents] : []),
      ...(config.CART_SERVICE === 'onchain' ? [onChainCheckout, onChainRemoval] : []),
    ];
    ({ runners: this.runners, hosts: this.hosts } = partitionedRunners(reactions, config.STREAM_PARTITIONS, {
      store,
      logger,
      parking,
      positions,
      maxDeliveries: config.REACTION_MAX_DELIVERIES,
      databaseUrl: config.DATABASE_URL,
      // Deposit crediting calls the provider under its lock: the call must end before a standby can start.
      lockTiming: lockTimingFor(config.PROVIDER_TIMEOUT_MS),
    }));
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.start()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    await this.hosts?.close();
  }
}
