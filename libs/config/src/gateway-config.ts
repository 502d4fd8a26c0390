import { z } from 'zod';
import { hex32Bytes, port, sqlIdentifier, unsetWhenEmpty, url } from './env-types';
import { reconcileIntervalMs, relayerPrivateKey, suiAddress, suiCoinType } from './chain-config';
import { indexerFields } from './chain-indexer-config';
import { assistantEnv } from './assistant-config';
import { corsOriginList } from './cors-config';
import { memwalEnv } from './memwal-config';
import { orderApprovalUrlTemplate } from './order-approval-config';
import { productionRules } from './production-rules';
import { distinctSessionCookies, sessionFields } from './session-config';
import { sharedEnv } from './shared-config';
import { productionNamesTheCatalogue, productionNamesTheModel } from './stand-in-choices';
import { writeSideFields } from './write-side-config';

const onchainVariables = [
  'CHAIN_CONTRACT_ADDRESS',
  'CHAIN_CART_REGISTRY_ID',
  'CHAIN_RELAYER_PRIVATE_KEY',
  'CHAIN_RPC_URL',
] as const;

/**
 * Without issuer and audience, a token any other application got from the same provider key set
 * would open a session here.
 */
const productionVariables = [
  'WALLET_ENCRYPTION_KEY',
  'PROVIDER_JWT_ISSUER',
  'PROVIDER_JWT_AUDIENCE',
] as const;

export const gatewayEnv = sharedEnv
  .extend({
    PORT: port(3000),
    HOST: z.string().default('0.0.0.0'),
    /** /metrics (with /ready and /health) on a port of its own, never on the public PORT. */
    METRICS_PORT: port(9465),
    RATE_LIMIT_RPM: z.coerce.number().int().min(1).default(30),
    /** Unset: the spec's origins outside production, none in production (corsOrigins). */
    CORS_ORIGINS: corsOriginList.optional(),
    /** Unset: the test page outside production, no link in production (the agent is told where). */
    ORDER_APPROVAL_URL: unsetWhenEmpty(orderApprovalUrlTemplate),
    /** `mock` outside production when unset; production names it (productionNamesTheCatalogue). */
    PRODUCT_SERVICE: z.enum(['mock', 'scraping']).optional(),
    CART_SERVICE: z.enum(['db', 'onchain']).default('db'),
    CHAIN_CONTRACT_ADDRESS: suiAddress.optional(),
    CHAIN_CART_REGISTRY_ID: suiAddress.optional(),
    CHAIN_RELAYER_PRIVATE_KEY: relayerPrivateKey.optional(),
    CHAIN_PAYMENT_PACKAGE_ID: suiAddress.optional(),
    CHAIN_RPC_URL: url.optional(),
    ...indexerFields,
    ...writeSideFields,
    ...sessionFields,
    WALLET_ENCRYPTION_KEY: hex32Bytes.optional(),
    REACTIONS_SCHEMA: sqlIdentifier.default('reactions'),
    REACTION_MAX_DELIVERIES: z.coerce.number().int().min(1).max(100).default(10),
    PROVIDER_JWKS_URL: url.optional(),
    PROVIDER_JWT_ISSUER: z.string().optional(),
    PROVIDER_JWT_AUDIENCE: z.string().optional(),
    PROVIDER_API_URL: url.optional(),
    PROVIDER_API_KEY: z.string().optional(),
    PROVIDER_WEBHOOK_SECRET: z.string().optional(),
    PROVIDER_CHAIN: z.string().min(1).default('base-sepolia'),
    DEPOSIT_WEBHOOK_SECRET: z.string().min(16).optional(),
    /** The accepted deposit coin; unset, the deposit routes answer 503. Shared with the search service. */
    CHAIN_COIN_TYPE: suiCoinType.optional(),
    RECONCILE_INTERVAL_MS: reconcileIntervalMs,
    DEV_JWT_SECRET: z.string().min(32).optional(),
    READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
    /** Longest wait of a request for the writes its consistency token names (writes answered before readable). */
    CONSISTENT_READ_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
    /** Longest wait for one provider call, its retries included: a hung provider gives a 502 after it. */
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Longest wait for one chain JSON-RPC request (reads retry transport failures up to 3 times). */
    CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
    /**
     * Budget of one chat model call: its answer must start within it (retries of a 429 or 5xx and
     * their waits included) and must not fall silent for longer; well inside IDLE_TIMEOUT_MS, since
     * the chat answer's headers wait for the model to start.
     */
    CHAT_MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(30_000),
  })
  .check(productionRules(productionVariables))
  .check(distinctSessionCookies)
  // Runs even when another variable is already invalid, so one message names every problem.
  .check(
    z.superRefine(
      (env, ctx) => {
        if (env.CART_SERVICE !== 'onchain') return;
        for (const name of onchainVariables) {
          if (!env[name])
            ctx.addIssue({ code: 'custom', path: [name], message: 'required when CART_SERVICE=onchain' });
        }
      },
      { when: () => true },
    ),
  )
  .check(productionNamesTheCatalogue)
  .transform((env) => ({ ...env, PRODUCT_SERVICE: env.PRODUCT_SERVICE ?? 'mock' }))
  // Intersected rather than spread into the object so MemWal keeps its own cross-field rule.
  .and(assistantEnv)
  .and(memwalEnv)
  .check(productionNamesTheModel);

export type GatewayConfig = z.output<typeof gatewayEnv>;
