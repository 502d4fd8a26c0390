import { DynamicModule, Inject, InjectionToken, Module, OnApplicationShutdown } from '@nestjs/common';
import { ServiceMetrics } from '../service-metrics';
import { OBSERVABILITY_WIRING, type ObservabilityWiring } from './observability-wiring';
import { ProbesController } from './probes.controller';

export interface ObservabilityModuleOptions {
  /** Created before the app, so the HTTP hook installed on the adapter records into it too. */
  metrics: ServiceMetrics;
  inject: InjectionToken[];
  // Nest factories take whatever their `inject` list resolves to.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...dependencies: any[]) => ObservabilityWiring | Promise<ObservabilityWiring>;
}

/**
 * /metrics and /ready for a Nest service. The service says which of its providers to check
 * and instrument; the module serves them and detaches the hooks on shutdown.
 */
@Module({})
export class ObservabilityModule implements OnApplicationShutdown {
  constructor(@Inject(OBSERVABILITY_WIRING) private readonly wiring: ObservabilityWiring) {}

  static register(options: ObservabilityModuleOptions): DynamicModule {
    return {
      module: ObservabilityModule,
      controllers: [ProbesController],
      providers: [
        { provide: ServiceMetrics, useValue: options.metrics },
        { provide: OBSERVABILITY_WIRING, inject: options.inject, useFactory: options.useFactory },
      ],
      exports: [ServiceMetrics],
    };
  }

  onApplicationShutdown(): void {
    this.wiring.stop?.();
  }
}
