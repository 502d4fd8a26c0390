import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { SearchConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { DocsController } from './http/docs.controller';
import { envelopeExceptionFilter } from '@shop/service-kit';
import { toErrorResponse } from './http/error-response';
import { searchInfrastructure } from './infrastructure/search-infrastructure';
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
        searchInfrastructure(config, logger),
        searchObservability(config, metrics),
        CqrsModule.forRoot(),
        SearchModule.register(config),
        PaymentModule.register(config),
      ],
      controllers: [DocsController],
      providers: [envelopeExceptionFilter(toErrorResponse)],
    };
  }
}
