import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { SearchConfig } from '@shop/config';
import type { Logger } from '@shop/observability';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { DocsController } from './http/docs.controller';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import type { ServiceMetrics } from '@shop/metrics';
import { searchObservability } from './observability';
import { PaymentModule } from './payment/payment.module';
import { SearchModule } from './search/search.module';

@Module({})
export class AppModule {
  static register(config: SearchConfig, logger: Logger, metrics: ServiceMetrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        InfrastructureModule.forRoot(config, logger),
        searchObservability(config, metrics),
        CqrsModule.forRoot(),
        SearchModule.register(config),
        PaymentModule.register(config),
      ],
      controllers: [DocsController],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
