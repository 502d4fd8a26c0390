import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { ChainIndexer, startChainIndexer } from '@shop/chain-indexer';
import type { GatewayConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import type { Logger } from '@shop/logging';
import { CONFIG, DATABASE, EVENT_STORE, LOGGER } from '../infrastructure/tokens';

/**
 * Runs the chain indexer inside the gateway when CHAIN_CONTRACT_ADDRESS is set (the spec's
 * start-up order: after the server listens). Every gateway may host one; only the holder of
 * the indexer's lock advances the cursor.
 */
@Injectable()
export class ChainIndexerHost implements BeforeApplicationShutdown {
  private indexer: ChainIndexer | null = null;

  constructor(
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const { CHAIN_CONTRACT_ADDRESS, CHAIN_RPC_URL } = this.config;
    if (this.indexer || !CHAIN_CONTRACT_ADDRESS || !CHAIN_RPC_URL) return;
    this.indexer = await startChainIndexer(
      { ...this.config, CHAIN_CONTRACT_ADDRESS, CHAIN_RPC_URL },
      this.store,
      this.database,
      this.logger,
    );
  }

  /** Stops polling; `start` resumes from the stored cursor (an operator's pause, a test's lag). */
  async stop(): Promise<void> {
    const indexer = this.indexer;
    this.indexer = null;
    await indexer?.stop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }
}
