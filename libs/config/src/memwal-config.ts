import { z } from 'zod';
import { unsetWhenEmpty } from './env-types';

const CONNECTION = ['MEMWAL_URL', 'MEMWAL_DELEGATE_KEY', 'MEMWAL_ACCOUNT_ID'] as const;

/**
 * The MemWal variables, merged into the gateway's environment schema. Without MEMWAL_URL the project's
 * own memory store is used; with it, the key and account are required too.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `MEMWAL_URL` | unset | the relayer, e.g. `https://relayer.memwal.ai` |
 * | `MEMWAL_DELEGATE_KEY` | unset | Ed25519 delegate private key registered on the account, 32 bytes of hex |
 * | `MEMWAL_ACCOUNT_ID` | unset | the MemWalAccount object id (0x...) |
 * | `MEMWAL_NAMESPACE_PREFIX` | `shop-user` | a user's memories live in namespace `<prefix>-<userId>` |
 * | `MEMWAL_TIMEOUT_MS` | `5000` | deadline of one relayer call; a chat turn waits for recall |
 */
export const memwalEnv = z
  .object({
    MEMWAL_URL: unsetWhenEmpty(z.url({ protocol: /^https?$/ })),
    MEMWAL_DELEGATE_KEY: unsetWhenEmpty(
      z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex'),
    ),
    MEMWAL_ACCOUNT_ID: unsetWhenEmpty(
      z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be a 0x-prefixed object id'),
    ),
    MEMWAL_NAMESPACE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, "_" or "-" only')
      .default('shop-user'),
    MEMWAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  })
  .superRefine((env, ctx) => {
    if (!env.MEMWAL_URL) return;
    for (const name of CONNECTION) {
      if (!env[name])
        ctx.addIssue({ code: 'custom', path: [name], message: 'required when MEMWAL_URL is set' });
    }
  });

export type MemwalConfig = z.output<typeof memwalEnv>;
