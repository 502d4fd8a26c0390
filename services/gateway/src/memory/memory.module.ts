import { BeforeApplicationShutdown, Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import type { DatabaseHandle, ReactionsDatabase } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { MemwalMemoryStore, memwalOptionsOf } from '@shop/memory';
import type { Logger } from '@shop/logging';
import {
  partitionedRunners,
  PostgresReactionPositions,
  ReactionHosts,
  ReactionRunner,
} from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { CONFIG, DATABASE, EVENT_STORE, LOGGER, MEMORY_STORE, READ_DB } from '../infrastructure/tokens';
import type { AgentMemory } from './agent-memory';
import { MemwalErasureReaction } from './memwal-erasure.reaction';
import { MemwalSizesReaction } from './memwal-sizes.reaction';
import { ProjectMemoryStore } from './project-memory-store';
import { RememberPreferenceHandler } from './remember-preference.command';

/**
 * The chat agent's memory: MemWal when MEMWAL_URL is configured, otherwise the project's own
 * event-sourced store. Only MemWal needs reactions: the onboarding sizes forwarded to it, and a
 * closed account's memories forgotten there (the own store's are sealed events and projected rows).
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
  private readonly runners: ReactionRunner[];
  private readonly hosts: ReactionHosts | undefined;

  constructor(
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(DATABASE) database: DatabaseHandle,
    sizes: MemwalSizesReaction,
  ) {
    const memwal = memwalOptionsOf(config);
    const reactions = memwal ? [sizes, new MemwalErasureReaction(new MemwalMemoryStore(memwal))] : [];
    ({ runners: this.runners, hosts: this.hosts } = partitionedRunners(reactions, config.STREAM_PARTITIONS, {
      store,
      logger,
      databaseUrl: config.DATABASE_URL,
      // Beside the other reactions' records; ReactionsModule's parking provider migrates the
      // schema while the application is built, before any runner starts.
      positions: new PostgresReactionPositions(
        database.db.withSchema(config.REACTIONS_SCHEMA) as unknown as Kysely<ReactionsDatabase>,
      ),
    }));
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const runner of this.runners) await runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const runner of this.runners) await runner.stop();
    await this.hosts?.close();
  }
}
