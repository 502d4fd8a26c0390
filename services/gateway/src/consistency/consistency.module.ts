import { DynamicModule, Inject, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ServiceMetrics } from '@shop/metrics';
import type { EventStore } from '@shop/eventstore';
import { consistencyKey, ReadModelPositions } from '@shop/projections';
import { EVENT_STORE } from '../infrastructure/tokens';
import { recordAppend, recordUnreadableWrite } from './consistency-scope';
import { ConsistentReadGuard } from './consistent-read.guard';

/** Read-your-writes beyond a command's own wait: the consistency token and the wait for it. */
@Module({})
export class ConsistencyModule implements OnModuleInit, OnModuleDestroy {
  private stop: (() => void) | null = null;

  constructor(
    private readonly positions: ReadModelPositions,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  static register(metrics: ServiceMetrics): DynamicModule {
    return {
      module: ConsistencyModule,
      providers: [
        { provide: ServiceMetrics, useValue: metrics },
        { provide: APP_GUARD, useClass: ConsistentReadGuard },
      ],
    };
  }

  onModuleInit(): void {
    const stops = [
      this.positions.onCommitWait(({ aggregate, partition, sequence, readable }) => {
        if (!readable) recordUnreadableWrite(consistencyKey(aggregate, partition), sequence);
      }),
      this.store.onAppended((events) => {
        for (const event of events)
          recordAppend(this.positions.keyOf(event.aggregate, event.aggregateId), event.sequence);
      }),
    ];
    this.stop = () => stops.forEach((stop) => stop());
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
