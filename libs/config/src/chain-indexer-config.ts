import { z } from 'zod';
import { suiAddress } from './chain-config';
import { sqlIdentifier, url } from './env-types';
import { productionRules } from './production-rules';
import { sharedEnv } from './shared-config';

/** The indexer's own variables, shared by the standalone service and the gateway that hosts it. */
export const indexerFields = {
  INDEXER_SCHEMA: sqlIdentifier.default('chain_indexer'),
  INDEXER_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
};

export const chainIndexerEnv = sharedEnv
  .extend({
    CHAIN_RPC_URL: url,
    CHAIN_CONTRACT_ADDRESS: suiAddress,
    ...indexerFields,
  })
  .check(productionRules());

export type ChainIndexerConfig = z.output<typeof chainIndexerEnv>;
