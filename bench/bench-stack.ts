import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { loadConfig, sharedEnv, snapshotMacKey } from '@shop/config';
import { ProviderSandbox, startProviderSandbox } from '@shop/sandbox-provider';
import { connectNats, provisionEventStream } from '@shop/eventstore';
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
  /** The master key of the services' data keys (DATA_ENCRYPTION_KEY), for a store the bench opens on their stream. */
  dataEncryptionKey: Buffer;
  /** The gateway's snapshot MAC key, for snapshots the bench writes in its place. */
  snapshotKey: Buffer;
  /** From spawning each service to its first ready answer of /ready. */
  startupSeconds: { projector: number; gateway: number };
  gateway: ServiceProcess;
  /** Replaced by restartProjector. */
  projector: ServiceProcess;
  provider: ProviderSandbox;
  /** Stops the projector (SIGTERM, as a deploy does), waits `downMs`, starts it again and waits until it is ready. */
  restartProjector(downMs: number): Promise<void>;
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

export function freePort(): Promise<number> {
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
 * The gateway and the projector as separate processes (so each has its own CPU and RSS), on this
 * run's stream and schema, with the provider stand-in in this process for wallet provisioning
 * and sign-in. `compiled` runs the JavaScript the build wrote, as the production image does;
 * otherwise the TypeScript goes through the runtime transpiler, as `npm start` runs it.
 */
export async function startBenchStack(
  names: BenchNames,
  base: Record<string, string | undefined>,
  settings: Record<string, string>,
  /** Variables for the projector only (an experiment with its Postgres settings). */
  projectorSettings: Record<string, string> = {},
  compiled = true,
): Promise<BenchStack> {
  // Sessions outlive the longest bench run: a token expiring mid-phase would count as errors.
  const provider = await startProviderSandbox({
    port: 0,
    logLevel: 'silent',
    jwt: { ttlSeconds: 12 * 3600 },
  });
  const [gatewayPort, gatewayMetricsPort, metricsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
  ]);
  const dataEncryptionKey = randomBytes(32);
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
    WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    DATA_ENCRYPTION_KEY: dataEncryptionKey.toString('hex'),
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
  let stopping: Promise<void> | null = null;
  /** Once, however often it is called (the bench stops the main stack before its tracing phase). */
  const stop = () =>
    (stopping ??= (async () => {
      for (const service of started.reverse()) await service.stop();
      await provider.close();
    })());
  const entry = (service: string) =>
    compiled ? `services/${service}/dist/main.js` : `services/${service}/src/main.ts`;
  try {
    // The operator step the services only bind to (npm run migrate's, under the bench's credential).
    const nc = await connectNats({ NATS_URL: 'nats://127.0.0.1:4222', ...env }, 'bench-operator');
    await provisionEventStream(nc, {
      stream: names.stream,
      subjectPrefix: names.subjectPrefix,
      replicas: Number(env.EVENT_STREAM_REPLICAS ?? 1),
    }).finally(() => nc.close());
    let spawnedAt = performance.now();
    const projector = startServiceProcess(entry('projector'), { ...env, ...projectorSettings }, { compiled });
    started.push(projector);
    await untilReady(projectorUrl, projector);
    const projectorStartup = (performance.now() - spawnedAt) / 1000;
    spawnedAt = performance.now();
    const gateway = startServiceProcess(
      entry('gateway'),
      { ...env, METRICS_PORT: String(gatewayMetricsPort) },
      { compiled },
    );
    started.push(gateway);
    await untilReady(gatewayUrl, gateway);
    const gatewayStartup = (performance.now() - spawnedAt) / 1000;
    const stack: BenchStack = {
      names,
      gatewayUrl,
      gatewayMetricsUrl,
      projectorUrl,
      dataEncryptionKey,
      snapshotKey: snapshotMacKey(loadConfig(sharedEnv, env)),
      startupSeconds: { projector: projectorStartup, gateway: gatewayStartup },
      gateway,
      projector,
      provider,
      async restartProjector(downMs) {
        await stack.projector.stop();
        started.splice(started.indexOf(stack.projector), 1);
        await new Promise((r) => setTimeout(r, downMs));
        const restarted = startServiceProcess(
          entry('projector'),
          { ...env, ...projectorSettings },
          { compiled },
        );
        started.unshift(restarted);
        stack.projector = restarted;
        await untilReady(projectorUrl, restarted);
      },
      stop,
    };
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Polls /ready often (start-up time is measured to its first ready answer): the services log at
 * warn level here, so there is no start-up line to wait for.
 */
async function untilReady(url: string, service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${url} exited:\n${service.output().slice(-2000)}`);
    const ready = await fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms:\n${service.output().slice(-2000)}`);
}
