import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { InsufficientCoinBalance, type TestWallets } from './test-wallets';

const address = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'a Sui address');
const mist = z
  .string()
  .regex(/^[1-9]\d{0,29}$/, 'a positive whole number of MIST')
  .transform((value) => BigInt(value));
const coinType = z.string().regex(/^0x[0-9a-fA-F]{1,64}::\w+::\w+$/, 'a coin type, 0x…::module::Name');

const faucetBody = z.object({ address, coinType, amountMist: mist });
const paymentBody = z.object({
  payer: address,
  receiver: address,
  coinType,
  amountMist: mist,
  nonce: z.string().min(1).max(200),
});

/**
 * The stand-in's faucet and test wallet over HTTP, for a page that holds no key: unauthenticated
 * on purpose (the stand-in listens on loopback), and open to any origin like a public node's RPC.
 */
export function registerSandboxRoutes(app: FastifyInstance, wallets: TestWallets): void {
  app.addHook('onRequest', async (_request, reply) => {
    void reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-headers', 'content-type');
  });
  app.options('*', async (_request, reply) => reply.code(204).send());

  app.post('/sandbox/faucet', async (request, reply) => {
    const parsed = faucetBody.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
    const { address: owner, coinType: type, amountMist } = parsed.data;
    const digest = wallets.faucet(owner, type, amountMist);
    return { digest, balance: String(wallets.balance(owner, type)) };
  });

  app.post('/sandbox/payments', async (request, reply) => {
    const parsed = paymentBody.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
    try {
      return { digest: wallets.pay(parsed.data) };
    } catch (error) {
      if (error instanceof InsufficientCoinBalance) return reply.code(409).send({ error: error.message });
      throw error;
    }
  });
}
