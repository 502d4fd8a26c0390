import {
  DynamicModule,
  Inject,
  InjectionToken,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { OpsServer, startOpsServer } from '../ops-server';
import { ServiceMetrics } from '../service-metrics';
import { MetricsEndpoint } from './metrics-endpoint';
import { OBSERVABILITY_WIRING, type ObservabilityWiring } from './observability-wiring';
import { ProbesController } from './probes.controller';

export interface ObservabilityModuleOptions {
  /** Created before the app, so the HTTP hook installed on the adapter records into it too. */
  metrics: ServiceMetrics;
  /** The metrics server's own address: never the public port, so only who can reach it reads them. */
  metricsServer: { host: string; port: number };
  inject: InjectionToken[];
  // Nest factories take whatever their `inject` list resolves to.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...dependencies: any[]) => ObservabilityWiring | Promise<ObservabilityWiring>;
}

const METRICS_SERVER = Symbol('METRICS_SERVER');

/**
 * /ready for a Nest service on its public port, and /metrics (with /ready and /health) on a
 * metrics server of its own, as the projector has: what the process counts (routes, users'
 * traffic, dependencies' errors) is for the operator, not for whoever reaches the API. The
 * service says which of its providers to check and instrument; the module serves them and
 * detaches the hooks on shutdown.
 */
@Module({})
export class ObservabilityModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: OpsServer | null = null;

  constructor(
    @Inject(OBSERVABILITY_WIRING) private readonly wiring: ObservabilityWiring,
    @Inject(METRICS_SERVER) private readonly address: { host: string; port: number },
    private readonly metrics: ServiceMetrics,
    private readonly endpoint: MetricsEndpoint,
  ) {}

  static register(options: ObservabilityModuleOptions): DynamicModule {
    return {
      module: ObservabilityModule,
      controllers: [ProbesController],
      providers: [
        { provide: ServiceMetrics, useValue: options.metrics },
        { provide: MetricsEndpoint, useValue: new MetricsEndpoint() },
        { provide: METRICS_SERVER, useValue: options.metricsServer },
        { provide: OBSERVABILITY_WIRING, inject: options.inject, useFactory: options.useFactory },
      ],
      exports: [ServiceMetrics, MetricsEndpoint],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    this.server = await startOpsServer({
      metrics: this.metrics,
      checks: this.wiring.checks,
      host: this.address.host,
      port: this.address.port,
    });
    this.endpoint.url = this.server.url;
  }

  async onApplicationShutdown(): Promise<void> {
    this.wiring.stop?.();
    await this.server?.close();
  }
}
