import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Kysely, sql } from 'kysely';
import { NatsConnection } from 'nats';
import pg from 'pg';
import pino from 'pino';
import { gatewayEnv, loadConfig, projectorEnv } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { connectNats, EventStore, NatsSettings } from '@shop/eventstore';
import { createLogger, Logger } from '@shop/logging';
import { rebuildProjections, TableChecksum, tableChecksums } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { createRedis, redisReady } from '@shop/redis';
import { ProviderSandbox, startProviderSandbox } from '@shop/sandbox-provider';
import { DataKeyVault, openDataKeyVault } from '@shop/wallets';
import {
  freePort,
  provisionTestStream,
  ServiceProcess,
  startServiceProcess,
  testEnvironment,
  TestEnvironment,
} from '@shop/testing';
import { RunningProjector, startProjector } from '../../services/projector/src/projector';
import { createGatewayApp, listenGateway } from '../../services/gateway/src/bootstrap';
import { TestClient, TestResponse } from '../../services/gateway/test/stack';

export { eventually, TestClient } from '../../services/gateway/test/stack';
export type { TestResponse } from '../../services/gateway/test/stack';

export const devJwtSecret = 'reliability-dev-secret-0123456789abcdef0123';
export const walletEncryptionKey = randomBytes(32).toString('hex');
export const dataEncryptionKeyHex = randomBytes(32).toString('hex');
export const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
export const depositSecret = `deposit-${randomBytes(16).toString('hex')}`;
export const providerApiKey = `sk_test_${randomBytes(16).toString('hex')}`;

const repoRoot = resolve(__dirname, '../..');

// ---------------------------------------------------------------------------------------------
// Figures: every file counts what it did; `report.ts` adds them up for the closing note.
// ---------------------------------------------------------------------------------------------

export interface FigureCounts {
  faultsSurvived: number;
  requestsSent: number;
  badInputsTried: number;
  attacksTried: number;
  eventsLost: number;
  invariantsBroken: number;
}

export const figures: FigureCounts = {
  faultsSurvived: 0,
  requestsSent: 0,
  badInputsTried: 0,
  attacksTried: 0,
  eventsLost: 0,
  invariantsBroken: 0,
};

/** Writes this file's figures to test-output/reliability/<name>.json (read by report.ts). */
export function writeFigures(name: string, extra: Record<string, unknown> = {}): void {
  const dir = resolve(repoRoot, 'test-output/reliability');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    resolve(dir, `${name}.json`),
    `${JSON.stringify({ file: name, at: new Date().toISOString(), ...figures, ...extra }, null, 2)}\n`,
  );
}

/** A cookie-keeping client that counts every request it sends and never waits longer than `timeoutMs`. */
export class Client extends TestClient {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 20_000,
  ) {
    super(url);
  }

  override async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> {
    figures.requestsSent++;
    return withDeadline(super.request(method, path, body, headers), this.timeoutMs, `${method} ${path}`);
  }
}

/** A counted `fetch` with a deadline: a hung request fails the test instead of hanging it. */
export async function send(url: string, init: RequestInit = {}, timeoutMs = 20_000): Promise<Response> {
  figures.requestsSent++;
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

export class HungRequestError extends Error {}

/** A service's entry: its TypeScript through the runtime transpiler, or the build's JavaScript. */
export function serviceEntry(service: string, compiled: boolean): string {
  return compiled ? `services/${service}/dist/main.js` : `services/${service}/src/main.ts`;
}

export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HungRequestError(`${what} hung for more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Logs captured in memory.
// ---------------------------------------------------------------------------------------------

export interface CapturedLogger {
  logger: Logger;
  lines: string[];
  text(): string;
}

/** A pino logger (the services' own redaction) whose lines are kept for assertions. */
export function capturedLogger(level = 'info'): CapturedLogger {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(line);
      if (lines.length > 50_000) lines.splice(0, lines.length - 25_000);
      done();
    },
  });
  const logger = pino(
    {
      level,
      base: { service: 'capture' },
      redact: {
        paths: ['req.headers.cookie', '*.jwt', '*.refreshToken', '*.privateKey', '*.secret'],
        censor: '[redacted]',
      },
    },
    stream,
  ) as unknown as Logger;
  return { logger, lines, text: () => lines.join('\n') };
}

// ---------------------------------------------------------------------------------------------
// The stack under test: gateway(s), projector, provider stand-in, on any NATS, Postgres, Redis.
// ---------------------------------------------------------------------------------------------

export interface StackOptions {
  /** Services' environment beyond the defaults (NATS_URL, DATABASE_URL, REDIS_URL included). */
  vars?: Record<string, string>;
  /** Start the projector in this process (default true). */
  projector?: boolean;
  /** Start one gateway in this process (default true). */
  gateway?: boolean;
  logger?: Logger;
}

export interface SpawnedGateway {
  url: string;
  /** Its metrics server (METRICS_PORT): /metrics is not on the public port. */
  metricsUrl: string;
  process: ServiceProcess;
}

export class Stack {
  readonly apps: NestFastifyApplication[] = [];
  projector: RunningProjector | null = null;
  url = '';
  private storeHandle: { nc: NatsConnection; store: EventStore } | null = null;
  private databaseHandle: DatabaseHandle | null = null;
  private readonly children: ServiceProcess[] = [];

  private constructor(
    readonly env: TestEnvironment,
    readonly vars: Record<string, string>,
    readonly provider: ProviderSandbox,
    readonly logger: Logger,
  ) {}

  static async start(label: string, options: StackOptions = {}): Promise<Stack> {
    const env = testEnvironment(label);
    const provider = await startProviderSandbox({
      port: 0,
      apiKey: providerApiKey,
      webhookRetryDelaysMs: [200, 1000],
    });
    const vars: Record<string, string> = {
      ...env.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DEV_JWT_SECRET: devJwtSecret,
      WALLET_ENCRYPTION_KEY: walletEncryptionKey,
      DATA_ENCRYPTION_KEY: dataEncryptionKeyHex,
      PROVIDER_API_URL: provider.url,
      PROVIDER_API_KEY: provider.apiKey,
      PROVIDER_JWKS_URL: provider.jwksUrl,
      PROVIDER_JWT_ISSUER: provider.issuer,
      PROVIDER_JWT_AUDIENCE: provider.audience,
      PROVIDER_WEBHOOK_SECRET: webhookSecret,
      DEPOSIT_WEBHOOK_SECRET: depositSecret,
      RATE_LIMIT_RPM: '1000000',
      PAYMENT_VERIFY_RATE_LIMIT_RPM: '1000000',
      ...options.vars,
    };
    const resolved: TestEnvironment = {
      ...env,
      natsUrl: vars.NATS_URL!,
      databaseUrl: vars.DATABASE_URL!,
      redisUrl: vars.REDIS_URL!,
      stream: vars.EVENT_STREAM!,
      subjectPrefix: vars.EVENT_SUBJECT_PREFIX!,
      schema: vars.READ_MODEL_SCHEMA!,
      redisKeyPrefix: vars.REDIS_KEY_PREFIX!,
      env: vars,
    };
    const stack = new Stack(resolved, vars, provider, options.logger ?? createLogger('test', 'silent'));
    await provisionTestStream(resolved, stack.natsSettings());
    if (options.projector ?? true) await stack.startProjector();
    if (options.gateway ?? true) {
      stack.url = await stack.startGateway();
      provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
    }
    return stack;
  }

  /** The environment a service process of this stack gets. */
  serviceEnv(more: Record<string, string> = {}): Record<string, string | undefined> {
    return { ...process.env, ...this.vars, ...more };
  }

  async startProjector(more: Record<string, string> = {}): Promise<RunningProjector> {
    this.projector = await startProjector(loadConfig(projectorEnv, this.serviceEnv(more)), this.logger);
    return this.projector;
  }

  async stopProjector(): Promise<void> {
    await this.projector?.stop();
    this.projector = null;
  }

  /** Another gateway instance in this process (a second pod on the same stream, database and Redis). */
  async startGateway(more: Record<string, string> = {}, logger = this.logger): Promise<string> {
    const app = await createGatewayApp(loadConfig(gatewayEnv, this.serviceEnv(more)), logger);
    await listenGateway(app, 0, '127.0.0.1');
    this.apps.push(app);
    return `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  }

  /**
   * A gateway as a real child process (its own memory, its own logs), ready when /health answers;
   * `compiled` runs the build's JavaScript (services/gateway/dist), as the image does.
   */
  async spawnGateway(more: Record<string, string> = {}, compiled = false): Promise<SpawnedGateway> {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    const child = startServiceProcess(
      serviceEntry('gateway', compiled),
      { ...this.vars, METRICS_PORT: String(metricsPort), ...more, PORT: String(port) } as Record<
        string,
        string
      >,
      { compiled },
    );
    this.children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.child.exitCode !== null) throw new Error(`gateway exited:\n${child.output().slice(-3000)}`);
      const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`gateway did not start:\n${child.output().slice(-3000)}`);
      await sleep(100);
    }
    return { url, metricsUrl: `http://127.0.0.1:${metricsPort}`, process: child };
  }

  spawnProjector(more: Record<string, string> = {}, compiled = false): ServiceProcess {
    const child = startServiceProcess(
      serviceEntry('projector', compiled),
      { ...this.vars, METRICS_PORT: '0', ...more } as Record<string, string>,
      { compiled },
    );
    this.children.push(child);
    return child;
  }

  /** A client of the first gateway (or `url`). */
  client(url = this.url): Client {
    return new Client(url);
  }

  async store(): Promise<EventStore> {
    if (!this.storeHandle) {
      const nc = await connectNats(this.natsSettings(), 'reliability-assert');
      const store = await EventStore.create(nc, {
        stream: this.env.stream,
        subjectPrefix: this.env.subjectPrefix,
        catalogue: eventCatalogue,
        replicas: Number(this.vars.EVENT_STREAM_REPLICAS ?? 1),
        dataKeys: await this.dataKeys(),
      });
      this.storeHandle = { nc, store };
    }
    return this.storeHandle.store;
  }

  /** Where the stack's NATS is, with the credential its variables name (none on the open test server). */
  natsSettings(): NatsSettings {
    return { ...this.vars, NATS_URL: this.env.natsUrl };
  }

  /** The stream's last sequence once nothing has been appended for `quietMs` (reactions settled). */
  async quietSequence(quietMs = 500, timeoutMs = 15_000): Promise<number> {
    const store = await this.store();
    let last = await store.lastStreamSequence();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await sleep(quietMs);
      const now = await store.lastStreamSequence();
      if (now === last) return now;
      last = now;
    }
    return last;
  }

  /** The data keys the stack's services seal personal fields with. */
  dataKeys(): Promise<DataKeyVault> {
    return openDataKeyVault(
      this.database.db as Kysely<unknown>,
      this.vars.SECRETS_SCHEMA!,
      Buffer.from(this.vars.DATA_ENCRYPTION_KEY!, 'hex'),
    );
  }

  get database(): DatabaseHandle {
    this.databaseHandle ??= createDatabase(this.env.databaseUrl, { max: 4, applicationName: 'assert' });
    return this.databaseHandle;
  }

  /** A user who may use gated routes (dev login + onboarding), with an active wallet when `wallet`. */
  async shopper(options: { wallet?: boolean; url?: string; funds?: string } = {}): Promise<Shopper> {
    const client = new Client(options.url ?? this.url);
    const email = `${randomUUID().slice(0, 12)}@example.com`;
    const userId = await client.onboard(email);
    let evm: string | null = null;
    let sui: string | null = null;
    if (options.wallet ?? true) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const profile = await client.request('GET', '/api/auth/profile');
        if (profile.json?.walletStatus === 'active') {
          evm = profile.json.evmAddress as string;
          sui = profile.json.walletAddress as string;
          break;
        }
        if (Date.now() > deadline) throw new Error(`wallet not provisioned: ${profile.text}`);
        await sleep(50);
      }
      if (options.funds !== '0') this.provider.fund(evm, options.funds ?? '1000');
    }
    return { client, userId, email, evm, sui };
  }

  async stop(): Promise<void> {
    for (const child of this.children) await child.kill().catch(() => undefined);
    for (const app of this.apps.splice(0)) await app.close().catch(() => undefined);
    await this.stopProjector().catch(() => undefined);
    await this.provider.close().catch(() => undefined);
    if (this.storeHandle) {
      await this.storeHandle.store.jsm.streams.delete(this.env.stream).catch(() => undefined);
      await this.storeHandle.store.jsm.streams
        .delete(`KV_${this.storeHandle.store.snapshots.bucket}`)
        .catch(() => undefined);
      await this.storeHandle.nc.close().catch(() => undefined);
    } else {
      const nc = await connectNats(this.natsSettings(), 'reliability-cleanup').catch(() => null);
      if (nc) {
        const jsm = await nc.jetstreamManager({ timeout: 2000 }).catch(() => null);
        await jsm?.streams.delete(this.env.stream).catch(() => undefined);
        await jsm?.streams.delete(`KV_${this.env.stream}_snapshots`).catch(() => undefined);
        await nc.close().catch(() => undefined);
      }
    }
    await this.dropSchemas().catch(() => undefined);
    await this.databaseHandle?.close().catch(() => undefined);
    await clearRedisPrefix(this.env.redisUrl, this.env.redisKeyPrefix).catch(() => undefined);
  }

  private async dropSchemas(): Promise<void> {
    const client = new pg.Client({ connectionString: this.env.databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`,
      [`${this.env.schema}%`],
    );
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    await client.end();
  }
}

export interface Shopper {
  client: Client;
  userId: string;
  email: string;
  evm: string | null;
  sui: string | null;
}

async function clearRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = createRedis(url, '');
  if (await redisReady(redis, 1000)) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
}

// ---------------------------------------------------------------------------------------------
// Read-model checks.
// ---------------------------------------------------------------------------------------------

/** Every read-model table. */
export function readModelTables(): string[] {
  return readModelProjections().flatMap((p) => p.tables);
}

export async function checkpoints(database: DatabaseHandle, schema: string): Promise<Record<string, number>> {
  const { rows } = await sql<{ projection: string; position: number }>`
    SELECT projection, position FROM ${sql.table(`${schema}.projection_checkpoints`)}`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.projection, Number(r.position)]));
}

/** Waits until every read-model projection's checkpoint has reached `sequence`. */
export async function waitForProjections(
  database: DatabaseHandle,
  schema: string,
  sequence: number,
  timeoutMs = 60_000,
): Promise<Record<string, number>> {
  const names = readModelProjections().map((p) => p.name);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const positions = await checkpoints(database, schema).catch(() => ({}) as Record<string, number>);
    if (names.every((n) => (positions[n] ?? 0) >= sequence)) return positions;
    if (Date.now() > deadline)
      throw new Error(`projections did not reach ${sequence}: ${JSON.stringify(positions)}`);
    await sleep(100);
  }
}

/**
 * Rebuilds every read-model projection from the stream into a fresh schema and compares each
 * table with the live one, both as of one stream position. Returns the tables that differ (none,
 * when the live model is right) and that position. The position is the stream's last sequence
 * while nothing is appended during the live tables' checksum: a reaction still backing off after
 * a fault (up to 30 s) may append after the stream went quiet, and the live model would then hold
 * an event the rebuild stops short of.
 */
export async function compareWithRebuild(
  store: EventStore,
  database: DatabaseHandle,
  liveSchema: string,
): Promise<{ differing: string[]; live: Record<string, TableChecksum>; sequence: number }> {
  const tables = readModelTables();
  const deadline = Date.now() + 60_000;
  let sequence = await store.lastStreamSequence();
  let live: Record<string, TableChecksum>;
  for (;;) {
    await waitForProjections(database, liveSchema, sequence, Math.max(deadline - Date.now(), 1));
    live = await tableChecksums(database.db, liveSchema, tables);
    const after = await store.lastStreamSequence();
    if (after === sequence) break;
    if (Date.now() > deadline)
      throw new Error(`the stream did not stay at one position (${sequence}, ${after})`);
    console.info(`compareWithRebuild: appended to while the live model was read (${sequence} -> ${after})`);
    sequence = after;
  }
  const rebuilt = `${liveSchema}_rebuilt`;
  await rebuildProjections({
    store,
    db: database.db,
    schema: rebuilt,
    projections: readModelProjections(),
    migrations: readModelMigrations,
    untilSequence: sequence,
  });
  const fresh = await tableChecksums(database.db, rebuilt, tables);
  const differing = tables.filter((t) => JSON.stringify(live[t]) !== JSON.stringify(fresh[t]));
  return { differing, live, sequence };
}

/** Every stored commit of the stream: sequence, subject and its events' types and data. */
export async function readStream(store: EventStore): Promise<
  {
    sequence: number;
    subject: string;
    commandId: string;
    events: { type: string; aggregateId: string; data: Record<string, unknown> }[];
  }[]
> {
  const out = [];
  const last = await store.lastStreamSequence();
  if (last === 0) return [];
  for await (const commit of store.read(1, last)) {
    const first = commit[0];
    if (!first) continue;
    out.push({
      sequence: first.sequence,
      subject: first.subject,
      commandId: first.commandId,
      events: commit.map((e) => ({
        type: e.type,
        aggregateId: e.aggregateId,
        data: e.data as Record<string, unknown>,
      })),
    });
  }
  return out;
}

export const product = (key: string, price = 1999) => ({
  productId: `P-${key}`,
  productName: `Product ${key}`,
  price,
  image: `https://images.example.com/${encodeURIComponent(key)}.jpg`,
  productUrl: `https://shop.example.com/dp/${encodeURIComponent(key)}`,
  retailer: 'Example Outfitters',
});

/** Runs `task` on `concurrency` workers until `shouldStop` says so (bounded by `maxIterations`). */
export async function runWorkers(
  concurrency: number,
  task: (worker: number, iteration: number) => Promise<void>,
  shouldStop: () => boolean,
  maxIterations = 100_000,
): Promise<void> {
  let iteration = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (!shouldStop() && iteration < maxIterations) {
        await task(worker, iteration++);
      }
    }),
  );
}

export const isEnvelope = (json: unknown): boolean =>
  typeof json === 'object' &&
  json !== null &&
  typeof (json as Record<string, unknown>).error === 'string' &&
  typeof (json as Record<string, unknown>).code === 'string';
