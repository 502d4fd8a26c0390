import { Module } from '@nestjs/common';
import { ChainIndexerHost } from './chain-indexer-host';

@Module({ providers: [ChainIndexerHost], exports: [ChainIndexerHost] })
export class OnChainModule {}
