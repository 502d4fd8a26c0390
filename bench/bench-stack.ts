import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ProviderSandbox, startProviderSandbox } from '@shop/sandbox-provider';
import { ServiceProcess, startServiceProcess } from '@shop/testing';

export interface BenchNames {
  runId: string;
  stream: string;
  subjectPrefix: string;
  schema: string;
  redisKeyPrefix: string;
}

export interface BenchStack {
  names: BenchNames;
  gatewayUrl: string;
  /** The gateway's metrics server (METRICS_PORT): /metrics is not on its public port. */
  gatewayMetricsUrl: string;
  projectorUrl: string;
  gateway: ServiceProcess;
  projector: ServiceProcess;
  provider: ProviderSandbox;
  stop(): Promise<void>;
}

/** Names of this run alone: the bench never touches the stream or schema of a running stack. */
export function benchNames(): BenchNames {
  const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  return {
    runId,
    stream: `BENCH_${runId}`.toUpperCase(),
    subjectPrefix: `bench${runId}`,
    schema: `bench_${runId}`,
    redisKeyPrefix: `bench:${runId}:`,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The gateway and the projector as separate processes, as `npm start` runs them (so each has
 * its own CPU and RSS), on this run's stream and schema, with the provider stand-in in this
 * process for wallet provisioning.
 */
export async function startBenchStack(
  names: BenchNames,
  base: Record<string, string | undefined>,
  settings: Record<string, string>,
  /** Variables for the projector only (an experiment with its Postgres settings). */
  projectorSettings: Record<string, string> = {},
): Promise<BenchStack> {
  const provider = await startProviderSandbox({ port: 0, logLevel: 'silent' });
  const [gatewayPort, metricsPort, gatewayMetricsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
  ]);
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >),
    EVENT_STREAM: names.stream,
    EVENT_SUBJECT_PREFIX: names.subjectPrefix,
    READ_MODEL_SCHEMA: names.schema,
    SECRETS_SCHEMA: `${names.schema}_secrets`,
    REDIS_KEY_PREFIX: names.redisKeyPrefix,
    HOST: '127.0.0.1',
    PORT: String(gatewayPort),
    METRICS_PORT: String(metricsPort),
    DEV_JWT_SECRET: randomBytes(32).toString('hex'),
    WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PROVIDER_API_URL: provider.url,
    PROVIDER_API_KEY: provider.apiKey,
    PROVIDER_JWKS_URL: provider.jwksUrl,
    PROVIDER_JWT_ISSUER: provider.issuer,
    PROVIDER_JWT_AUDIENCE: provider.audience,
    ...settings,
  };
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const gatewayMetricsUrl = `http://127.0.0.1:${gatewayMetricsPort}`;
  const projectorUrl = `http://127.0.0.1:${metricsPort}`;
  const started: ServiceProcess[] = [];
  const stop = async () => {
    for (const service of started.reverse()) await service.stop();
    await provider.close();
  };
  try {
    const projector = startServiceProcess('services/projector/src/main.ts', { ...env, ...projectorSettings });
    started.push(projector);
    await untilReady(projectorUrl, projector);
    const gateway = startServiceProcess('services/gateway/src/main.ts', {
      ...env,
      METRICS_PORT: String(gatewayMetricsPort),
    });
    started.push(gateway);
    await untilReady(gatewayUrl, gateway);
    return { names, gatewayUrl, gatewayMetricsUrl, projectorUrl, gateway, projector, provider, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls /ready: the services log at warn level here, so there is no start-up line to wait for. */
async function untilReady(url: string, service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${url} exited:\n${service.output().slice(-2000)}`);
    const ready = await fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms:\n${service.output().slice(-2000)}`);
}
