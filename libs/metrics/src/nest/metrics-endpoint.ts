/** Where this app's metrics server listens (METRICS_PORT): known once the app has started. */
export class MetricsEndpoint {
  url = '';
}
