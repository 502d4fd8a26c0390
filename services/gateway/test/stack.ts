import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { gatewayEnv, loadConfig, projectorEnv } from '@shop/config';
import { createLogger } from '@shop/logging';
import { ProviderSandbox, startProviderSandbox } from '@shop/sandbox-provider';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { Kysely } from 'kysely';
import {
  dropSchema,
  openTestEventStore,
  provisionTestStream,
  testDataEncryptionKey,
  testEnvironment,
  TestEnvironment,
} from '@shop/testing';
import { MetricsEndpoint } from '@shop/metrics';
import { DataKeyVault, openDataKeyVault } from '@shop/wallets';
import { RunningProjector, startProjector } from '../../projector/src/projector';
import { createGatewayApp, listenGateway } from '../src/bootstrap';
import type { GatewayOverrides } from '../src/infrastructure/gateway-overrides';

export interface TestStack {
  env: TestEnvironment;
  url: string;
  /** The first gateway's metrics server (METRICS_PORT): /metrics is not on its public port. */
  metricsUrl: string;
  provider: ProviderSandbox;
  projector: RunningProjector;
  /** Every gateway instance started, the first one serving `url`. */
  apps: NestFastifyApplication[];
  /** The stack's own stream and database, for tests to look at what a request did. */
  store: EventStore;
  database: DatabaseHandle;
  /** The data keys the stack's services seal personal fields with. */
  dataKeys: DataKeyVault;
  /** Another gateway instance on the same stream, database and Redis (a second pod). */
  startGateway(overrides?: Record<string, string>): Promise<string>;
  stop(): Promise<void>;
}

export const devJwtSecret = 'test-dev-secret-0123456789abcdef0123456789';
export const walletEncryptionKey = 'ab'.repeat(32);

/**
 * Gateway, projector and the provider stand-in in this process, on the test file's own
 * stream, schemas, Redis prefix and ports. `components` replace configured ones in every
 * gateway started (a scripted chat model).
 */
export async function startTestStack(
  label: string,
  overrides: Record<string, string> = {},
  components: GatewayOverrides = {},
  /** How far apart the provider stand-in pays, ships and delivers after an approval (0: at once). */
  providerStageDelayMs = 0,
): Promise<TestStack> {
  const env = testEnvironment(label);
  const provider = await startProviderSandbox({ port: 0, stageDelayMs: providerStageDelayMs });
  const vars: Record<string, string | undefined> = {
    ...process.env,
    ...env.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DEV_JWT_SECRET: devJwtSecret,
    WALLET_ENCRYPTION_KEY: walletEncryptionKey,
    PROVIDER_API_URL: provider.url,
    PROVIDER_API_KEY: provider.apiKey,
    PROVIDER_JWKS_URL: provider.jwksUrl,
    PROVIDER_JWT_ISSUER: provider.issuer,
    PROVIDER_JWT_AUDIENCE: provider.audience,
    ...overrides,
  };
  const logger = createLogger('test', vars.LOG_LEVEL ?? 'silent');
  await provisionTestStream(env);
  const projector = await startProjector(loadConfig(projectorEnv, vars), logger);
  const apps: NestFastifyApplication[] = [];
  const startGateway = async (more: Record<string, string> = {}) => {
    const app = await createGatewayApp(loadConfig(gatewayEnv, { ...vars, ...more }), logger, components);
    await listenGateway(app, 0, '127.0.0.1');
    apps.push(app);
    return `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  };
  const url = await startGateway();
  const nc = await connectNats(env.natsUrl, `assert-${label}`);
  const database = createDatabase(env.databaseUrl, { max: 2 });
  const dataKeys = await openDataKeyVault(
    database.db as Kysely<unknown>,
    env.env.SECRETS_SCHEMA!,
    testDataEncryptionKey(env),
  );
  const store = await EventStore.create(nc, {
    stream: env.stream,
    subjectPrefix: env.subjectPrefix,
    catalogue: eventCatalogue,
    dataKeys,
  });
  return {
    env,
    url,
    metricsUrl: apps[0]!.get(MetricsEndpoint).url,
    provider,
    projector,
    apps,
    store,
    database,
    dataKeys,
    startGateway,
    async stop() {
      await database.close();
      await nc.drain();
      for (const app of apps) await app.close();
      await projector.stop();
      await provider.close();
      const store = await openTestEventStore(env);
      await store.close();
      await dropSchema(env);
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface TestResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
  text: string;
  setCookies: string[];
}

/** A tiny cookie-keeping client, like a browser talking to the API. */
export class TestClient {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(this.cookies.size > 0
          ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
          : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const v = value.join('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line) || v === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), v);
    }
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      json: parseJson(text) as Record<string, unknown>,
      text,
      setCookies,
    };
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  /** Dev login plus the three onboarding steps: a user who may use gated routes. */
  async onboard(email: string): Promise<string> {
    const login = await this.request('POST', '/api/dev/login', { email });
    if (login.status !== 200) throw new Error(`dev login failed: ${login.text}`);
    await this.request('POST', '/api/onboarding/step-1', { displayName: 'Test User' });
    await this.request('POST', '/api/onboarding/step-2', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      street: '1 Main Street',
      country: 'US',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
    });
    const done = await this.request('POST', '/api/onboarding/step-3', {
      topsSize: 'M',
      bottomsSize: '32',
      footwearSize: '42',
    });
    if (done.status !== 200) throw new Error(`onboarding failed: ${done.text}`);
    return login.json.userId as string;
  }
}

export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
