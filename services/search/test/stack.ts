import { randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, SearchConfig, searchEnv } from '@shop/config';
import { createLogger } from '@shop/logging';
import { createRedis, redisReady } from '@shop/redis';
import {
  dropSchema,
  openTestEventStore,
  provisionTestStream,
  testEnvironment,
  TestEnvironment,
} from '@shop/testing';
// Workspace packages outside libs/ have no path alias, so the stand-ins are imported by path.
import { startApifySandbox, type ApifySandbox } from '../../../infra/sandbox/apify/src';
import { startSuiSandbox, type SuiSandbox } from '../../../infra/sandbox/sui/src';
import { startSearchService } from '../src/bootstrap';
import { FakeBackend, startFakeBackend } from './fake-backend';

export const apifyToken = 'search-test-token';
export const webhookSecret = 'test-webhook-secret';

export interface SearchStack {
  env: TestEnvironment;
  config: SearchConfig;
  url: string;
  app: NestFastifyApplication;
  apify: ApifySandbox;
  sui: SuiSandbox;
  backend: FakeBackend;
  merchant: string;
  stop(): Promise<void>;
}

export const newAddress = (): string => Ed25519Keypair.generate().toSuiAddress();

/**
 * The search service in this process on a free port, with the scraping platform and chain
 * stand-ins and a fake backend, on the test file's own stream, schema and Redis prefix.
 * `overrides` with an empty string unset a variable.
 */
export async function startSearchStack(
  label: string,
  overrides: Record<string, string> = {},
): Promise<SearchStack> {
  const env = testEnvironment(label);
  const [apify, sui, backend] = await Promise.all([
    startApifySandbox({ token: apifyToken, port: 0 }),
    startSuiSandbox({ port: 0 }),
    startFakeBackend(),
  ]);
  const merchant = newAddress();
  const vars: Record<string, string | undefined> = {
    ...process.env,
    ...env.env,
    PORT: '0',
    HOST: '127.0.0.1',
    // Every test names its own client address, so rate limits of one test never touch another.
    TRUST_PROXY: '127.0.0.1',
    SEARCH_SCHEMA: env.schema,
    APIFY_API_TOKEN: apifyToken,
    APIFY_API_BASE_URL: apify.url,
    CHAIN_RPC_URL: sui.url,
    CHAIN_MERCHANT_ADDRESS: merchant,
    CHAIN_COIN_TYPE: '0x2::sui::SUI',
    DEPOSIT_WEBHOOK_SECRET: webhookSecret,
    BACKEND_URL: backend.url,
    ...overrides,
  };
  const config = loadConfig(searchEnv, vars);
  const logger = createLogger('search-test', vars.LOG_LEVEL ?? 'silent');
  await provisionTestStream(env);
  const { app, url } = await startSearchService(config, logger, { rpcGracePeriodMs: 0 });
  return {
    env,
    config,
    url,
    app,
    apify,
    sui,
    backend,
    merchant,
    async stop() {
      await app.close();
      await Promise.all([apify.close(), sui.close(), backend.close()]);
      const store = await openTestEventStore(env);
      await store.close();
      await dropSchema(env);
      const redis = createRedis(env.redisUrl, '');
      await redisReady(redis);
      const keys = await redis.keys(`${env.redisKeyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  json: { data: unknown; status: string; code: number; message?: string } & Record<string, unknown>;
  text: string;
}

/** A client with its own address (X-Forwarded-For), as another user on another machine. */
export class ApiClient {
  readonly ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  constructor(private readonly baseUrl: string) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-forwarded-for': this.ip,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json: ApiResponse['json'];
    try {
      json = JSON.parse(text);
    } catch {
      json = { data: undefined, status: '', code: 0 };
    }
    return { status: response.status, headers: response.headers, json, text };
  }

  get(path: string): Promise<ApiResponse> {
    return this.request('GET', path);
  }
}

export const uniqueWords = (): string => `test ${randomUUID().slice(0, 8)}`;
