import { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defaultChain, sandboxChainNames } from './chains';
import { idempotencyKey, IdempotencyStore } from './idempotency';
import { parseOrReject } from './provider-api-error';
import { toBaseUnits } from './usdc';
import { createWalletBody, WalletRegistry } from './wallet-registry';

const locatorParams = z.object({ locator: z.string().min(1) });

const commaList = z
  .string()
  .transform((v) => v.split(',').map((item) => item.trim()))
  .pipe(z.array(z.string().min(1)));

const balancesQuery = z.object({ tokens: commaList, chains: commaList.optional() });

/**
 * Staging's faucet. `usdxm`, staging's test stablecoin, is credited as usdc because the stand-in
 * keeps one stablecoin ledger and orders pay from it. Amounts are not capped at the real 100.
 */
const fundBody = z.object({
  amount: z.number().positive().max(1_000_000),
  token: z.enum(['usdc', 'usdxm']),
  chain: z.string().default(defaultChain),
});

export function registerWalletRoutes(
  app: FastifyInstance,
  wallets: WalletRegistry,
  idempotency: IdempotencyStore,
): void {
  app.post('/api/2025-06-09/wallets', { config: { operation: 'wallets.create' } }, async (request, reply) => {
    const { wallet, created } = wallets.create(parseOrReject(createWalletBody, request.body));
    return reply.code(created ? 201 : 200).send(wallet);
  });

  app.get('/api/2025-06-09/wallets/:locator', { config: { operation: 'wallets.get' } }, async (request) => {
    const { locator } = parseOrReject(locatorParams, request.params);
    return wallets.get(locator);
  });

  app.get(
    '/api/2025-06-09/wallets/:locator/balances',
    { config: { operation: 'wallets.balances' } },
    async (request) => {
      const { locator } = parseOrReject(locatorParams, request.params);
      const query = parseOrReject(balancesQuery, request.query);
      return wallets.tokenBalances(locator, query.tokens, query.chains ?? sandboxChainNames());
    },
  );

  app.post(
    '/api/v1-alpha2/wallets/:locator/balances',
    { config: { operation: 'wallets.fund' } },
    async (request, reply) => {
      const { locator } = parseOrReject(locatorParams, request.params);
      const answer = await idempotency.remember('wallets.fund', idempotencyKey(request.headers), async () => {
        const body = parseOrReject(fundBody, request.body);
        wallets.credit(locator, body.chain, toBaseUnits(body.amount.toFixed(6)));
        return { statusCode: 200, body: wallets.legacyBalances(locator) };
      });
      return reply.code(answer.statusCode).send(answer.body);
    },
  );
}
