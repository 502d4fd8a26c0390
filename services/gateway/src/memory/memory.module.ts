import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import type { EventStore } from '@shop/eventstore';
import { MemwalMemoryStore, memwalOptionsOf } from '@shop/memory';
import type { Logger } from '@shop/logging';
import { ReactionRunner } from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { CONFIG, EVENT_STORE, LOGGER, MEMORY_STORE, READ_DB } from '../infrastructure/tokens';
import type { AgentMemory } from './agent-memory';
import { MemwalSizesReaction } from './memwal-sizes.reaction';
import { ProjectMemoryStore } from './project-memory-store';
import { RememberPreferenceHandler } from './remember-preference.command';

/**
 * The chat agent's memory: MemWal when MEMWAL_URL is configured, otherwise the project's own
 * event-sourced store. Only MemWal needs the onboarding sizes forwarded by a reaction.
 */
@Module({
  providers: [
    RememberPreferenceHandler,
    MemwalSizesReaction,
    {
      provide: MEMORY_STORE,
      inject: [CONFIG, CommandBus, READ_DB],
      useFactory: (
        config: GatewayConfig,
        commands: CommandBus,
        db: Kysely<ReadModelDatabase>,
      ): AgentMemory => {
        const memwal = memwalOptionsOf(config);
        return memwal ? new MemwalMemoryStore(memwal) : new ProjectMemoryStore(commands, db);
      },
    },
  ],
  exports: [MEMORY_STORE],
})
export class MemoryModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly runner: ReactionRunner | null;

  constructor(
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    sizes: MemwalSizesReaction,
  ) {
    this.runner = memwalOptionsOf(config)
      ? new ReactionRunner({ store, reaction: sizes, logger, databaseUrl: config.DATABASE_URL })
      : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.runner?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
