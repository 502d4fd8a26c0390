import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { GatewayConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { DocsController } from './http/docs.controller';
import { HealthController } from './http/health.controller';
import type { GatewayOverrides } from './infrastructure/gateway-overrides';
import { envelopeExceptionFilter } from '@shop/service-kit';
import { toErrorResponse } from './http/error-envelope';
import { gatewayInfrastructure } from './infrastructure/gateway-infrastructure';
import { gatewayObservability } from './infrastructure/observability';
import type { ServiceMetrics } from '@shop/metrics';
import { CartModule } from './cart/cart.module';
import { CatalogImagesModule } from './catalog-images/catalog-images.module';
import { servesCatalogImages } from './catalog-images/serves-catalog-images';
import { CheckoutModule } from './checkout/checkout.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ChatModule } from './chat/chat.module';
import { DepositModule } from './deposit/deposit.module';
import { OnboardingModule } from './onboarding/onboarding.module';
import { OnChainModule } from './onchain/onchain.module';
import { OrdersModule } from './orders/orders.module';
import { SessionsModule } from './sessions/sessions.module';
import { servesTestPage } from './test-page-route/serves-test-page';
import { TestPageModule } from './test-page-route/test-page.module';
import { UserModule } from './user/user.module';
import { ReactionsModule } from './reactions.module';
import { ConsistencyModule } from './consistency/consistency.module';
import { McpModule } from './mcp/mcp.module';

@Module({})
export class AppModule {
  static register(
    config: GatewayConfig,
    logger: Logger,
    overrides: GatewayOverrides,
    metrics: ServiceMetrics,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        gatewayInfrastructure(config, logger, overrides),
        gatewayObservability(config, metrics),
        CqrsModule.forRoot(),
        // In this order: the access guard (UserModule's) runs before the consistent-read wait.
        UserModule.register({ devLogin: config.NODE_ENV !== 'production' }),
        ConsistencyModule.register(metrics),
        OnboardingModule,
        CartModule,
        SessionsModule,
        ChatModule,
        OrdersModule,
        DepositModule,
        CheckoutModule,
        WebhooksModule,
        ReactionsModule,
        OnChainModule,
        McpModule,
        ...(servesTestPage(config) ? [TestPageModule] : []),
        ...(servesCatalogImages(config) ? [CatalogImagesModule] : []),
      ],
      controllers: [HealthController, DocsController],
      providers: [envelopeExceptionFilter(toErrorResponse)],
    };
  }
}
