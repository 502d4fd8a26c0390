import { z } from 'zod';
import { chainNetwork, reconcileIntervalMs, suiAddress, suiCoinType } from './chain-config';
import { port, sqlIdentifier, url } from './env-types';
import { productionRules } from './production-rules';
import { trustProxy } from './session-config';
import { sharedEnv } from './shared-config';
import { writeSideFields } from './write-side-config';

/** Public full-node endpoints, the RPC default when CHAIN_RPC_URL is not set. */
const DEFAULT_CHAIN_RPC_URLS = {
  mainnet: 'https://fullnode.mainnet.sui.io:443',
  testnet: 'https://fullnode.testnet.sui.io:443',
  devnet: 'https://fullnode.devnet.sui.io:443',
  localnet: 'http://127.0.0.1:9000',
} as const;

export const searchEnv = sharedEnv
  .extend({
    PORT: port(3000),
    HOST: z.string().default('0.0.0.0'),
    /** /metrics (with /ready and /health) on a port of its own, never on the public PORT. */
    METRICS_PORT: port(9466),
    TRUST_PROXY: trustProxy,
    /** The service's own Postgres schema: projection bookkeeping and the transaction records. */
    SEARCH_SCHEMA: sqlIdentifier.default('search'),
    READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
    ...writeSideFields,
    CHAIN_NETWORK: chainNetwork.default('testnet'),
    CHAIN_RPC_URL: url.optional(),
    /** Absent disables payment verification, as the spec allows; search still runs. */
    CHAIN_MERCHANT_ADDRESS: suiAddress.optional(),
    /** MIST amounts exceed 2^53, so they stay integers end to end: a bigint, never a float. */
    CHAIN_PAYMENT_AMOUNT_MIST: z
      .string()
      .regex(/^[1-9][0-9]*$/, 'must be a positive whole number of MIST')
      .default('1000000000')
      .transform((value) => BigInt(value)),
    /**
     * The accepted coin, the same variable the gateway credits by; unset, verification is disabled
     * rather than accepting any coin. Normalized, so it compares equal to what the chain reports.
     */
    CHAIN_COIN_TYPE: suiCoinType.optional(),
    RECONCILE_INTERVAL_MS: reconcileIntervalMs,
    APIFY_API_TOKEN: z.string().min(1).optional(),
    APIFY_API_BASE_URL: url.optional(),
    APIFY_ACTOR_ID: z.string().min(1).default('apify/e-commerce-scraping-tool'),
    DEPOSIT_WEBHOOK_SECRET: z.string().min(1).optional(),
    BACKEND_URL: url.default('http://127.0.0.1:3000'),
    /**
     * Verifications a minute per client address. The spec leaves the payment routes' limits
     * open; the default is the search routes' budget, counted apart from theirs.
     */
    PAYMENT_VERIFY_RATE_LIMIT_RPM: z.coerce.number().int().min(1).default(10),
    /** How long a scraped listing is served from Redis; 0 turns the cache off. */
    SEARCH_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(300),
    /** How long a product seen in a search stays findable by ASIN without a new scrape. */
    SEARCH_PRODUCT_TTL_SECONDS: z.coerce.number().int().min(0).default(3600),
  })
  .check(productionRules())
  .transform((env) => ({
    ...env,
    CHAIN_RPC_URL: env.CHAIN_RPC_URL ?? DEFAULT_CHAIN_RPC_URLS[env.CHAIN_NETWORK],
  }));

export type SearchConfig = z.output<typeof searchEnv>;
