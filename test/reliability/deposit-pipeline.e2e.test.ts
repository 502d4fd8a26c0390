import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalToMist } from '@shop/chain';
import { loadConfig, searchEnv, type SearchConfig } from '@shop/config';
import { DeciderRunner } from '@shop/commands';
import { depositAggregate } from '@shop/domain';
import { createLogger } from '@shop/logging';
import { ProviderClient } from '@shop/provider';
import type { FaultMode as ProviderFaultMode } from '@shop/sandbox-provider';
import { startSuiSandbox, SuiSandbox, type FaultMode as ChainFaultMode } from '@shop/sandbox-sui';
import { FaultProxy, ProxyFault, startFaultProxy } from '@shop/testing';
import { startSearchService } from '../../services/search/src/bootstrap';
import { depositSecret, figures, Shopper, Stack, TestClient, writeFigures } from './harness';

/**
 * A model-based property of the whole deposit pipeline: on-chain payments (valid, to another
 * address, in another coin, too small, failed; paid by the claimant's wallet or by a stranger's),
 * verified and confirmed concurrently and repeatedly, by their owner and by third parties, while
 * faults hit every hop (chain RPC, search service -> gateway, provider funding: before the effect,
 * after it, hanging, losing the answer, refusing, saying yes in a body that cannot be read) and
 * the gateway and the search service restart. Once the owners have had their answers and the
 * reconcilers have settled, every digest is credited exactly once if and only if it is a valid
 * payment by its claimant's wallet, and no record is left PENDING. `DEPOSIT_PROPERTY_RUNS` runs more scenarios, `DEPOSIT_PROPERTY_SEED` replays one.
 */
const runs = Number(process.env.DEPOSIT_PROPERTY_RUNS ?? 12);
const seed = process.env.DEPOSIT_PROPERTY_SEED
  ? Number(process.env.DEPOSIT_PROPERTY_SEED)
  : Date.now() % 2 ** 31;
const SETTLE_MS = 40_000;
/** How long the search service waits per forward attempt before it counts the answer as lost. */
const LATE_ANSWER_MS = 6_000;

let sui: SuiSandbox;
let stack: Stack;
let hop: FaultProxy;
let gatewayUrl: string;
let searchConfig: SearchConfig;
let search: { url: string; close: () => Promise<void> };
let USDC: string;
let users: Shopper[];
const merchant = Ed25519Keypair.generate().toSuiAddress();
const elsewhere = Ed25519Keypair.generate().toSuiAddress();

const tally = {
  scenarios: 0,
  payments: 0,
  operations: 0,
  restarts: 0,
  faults: { chain: 0, hop: 0, provider: 0 } as Record<string, number>,
  faultKinds: {} as Record<string, number>,
  creditsExpected: 0,
  creditsMade: 0,
  doubleCredits: 0,
  stranded: 0,
  slowestScenarioMs: 0,
};

async function startSearch(): Promise<void> {
  const app = await startSearchService(searchConfig, createLogger('search', 'silent'), {
    rpcGracePeriodMs: 0,
  });
  search = { url: app.url, close: () => app.app.close() };
}

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await Stack.start('depositprop', {
    vars: {
      CHAIN_RPC_URL: sui.url,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: USDC,
      PROVIDER_TIMEOUT_MS: '1500',
      RECONCILE_INTERVAL_MS: '300',
      REACTION_MAX_DELIVERIES: '4',
    },
  });
  gatewayUrl = stack.url;
  hop = await startFaultProxy(gatewayUrl, LATE_ANSWER_MS);
  searchConfig = loadConfig(searchEnv, {
    ...stack.serviceEnv(),
    PORT: '0',
    SEARCH_SCHEMA: `${stack.env.schema}_search`,
    CHAIN_RPC_URL: sui.url,
    CHAIN_MERCHANT_ADDRESS: merchant,
    CHAIN_COIN_TYPE: USDC,
    CHAIN_PAYMENT_AMOUNT_MIST: '1000000',
    BACKEND_URL: hop.url,
    RECONCILE_INTERVAL_MS: '300',
  });
  await startSearch();
  users = await Promise.all([0, 1, 2].map(() => stack.shopper({ funds: '0' })));
}, 90_000);

afterAll(async () => {
  const { faults, faultKinds, ...counts } = tally;
  process.stdout.write(
    `deposit pipeline property: ${JSON.stringify({ seed, ...counts, faults, faultKinds })}\n` +
      `  reproduce: DEPOSIT_PROPERTY_SEED=${seed} DEPOSIT_PROPERTY_RUNS=${runs} npx vitest run test/reliability/deposit-pipeline.e2e.test.ts\n`,
  );
  writeFigures('deposit-pipeline', { seed, ...counts, faults, faultKinds });
  await search?.close();
  await hop?.close();
  await stack?.stop();
  await sui?.close();
});

type PaymentKind = 'valid' | 'wrongReceiver' | 'wrongCoin' | 'tooSmall' | 'failed';

interface PaymentSpec {
  kind: PaymentKind;
  /** The pool user who claims it. */
  claimant: number;
  /** Paid from the claimant's own wallet, or from a stranger's. */
  byClaimant: boolean;
  amount: number;
}

type Operation =
  | { op: 'verify'; payment: number; by: 'claimant' | 'otherUser' | 'stranger' }
  | { op: 'confirm'; payment: number }
  | { op: 'restartGateway' }
  | { op: 'restartSearch' };

interface Scenario {
  payments: PaymentSpec[];
  rounds: Operation[][];
  chainFaults: ChainFaultMode[];
  hopFaults: ProxyFault[];
  providerFault: { mode: ProviderFaultMode; times: number; status: number } | null;
}

const times = fc.integer({ min: 1, max: 2 });
/**
 * The funding call's answers: none, or not in time (before or after it funded); a 5xx; a refusal
 * (4xx) or a 4xx that says no such thing; and a yes (2xx) in a body that cannot be read.
 */
const providerFaultArb = fc.oneof(
  fc.record({
    mode: fc.constantFrom<ProviderFaultMode>('hang', 'hang-after', 'lost'),
    times,
    status: fc.constant(500),
  }),
  fc.record({
    mode: fc.constant<ProviderFaultMode>('error'),
    times,
    status: fc.constantFrom(500, 503, 400, 422, 409, 429),
  }),
  fc.record({
    mode: fc.constant<ProviderFaultMode>('error-after'),
    times,
    status: fc.constantFrom(502, 409),
  }),
  fc.record({
    mode: fc.constant<ProviderFaultMode>('garbled-after'),
    times,
    status: fc.constantFrom(200, 201),
  }),
);

const paymentArb: fc.Arbitrary<PaymentSpec> = fc.record({
  kind: fc.constantFrom<PaymentKind>(
    'valid',
    'valid',
    'valid',
    'wrongReceiver',
    'wrongCoin',
    'tooSmall',
    'failed',
  ),
  claimant: fc.integer({ min: 0, max: 2 }),
  byClaimant: fc.boolean().chain((b) => (b ? fc.constant(true) : fc.boolean())),
  amount: fc.integer({ min: 1, max: 4_000 }),
});

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .array(paymentArb, { minLength: 1, maxLength: 3 })
  .chain((payments) => {
    const index = fc.integer({ min: 0, max: payments.length - 1 });
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          op: fc.constant('verify' as const),
          payment: index,
          by: fc.constantFrom(
            'claimant' as const,
            'claimant' as const,
            'otherUser' as const,
            'stranger' as const,
          ),
        }),
      },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('confirm' as const), payment: index }) },
      { weight: 1, arbitrary: fc.constant({ op: 'restartGateway' as const }) },
      { weight: 1, arbitrary: fc.constant({ op: 'restartSearch' as const }) },
    );
    return fc.record({
      payments: fc.constant(payments),
      rounds: fc.array(fc.array(operation, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
      chainFaults: fc.array(fc.constantFrom<ChainFaultMode>('unavailable', 'disconnect', 'lost-response'), {
        maxLength: 2,
      }),
      hopFaults: fc.array(fc.constantFrom<ProxyFault>('refuse', 'drop', 'hang', 'lose', 'late'), {
        maxLength: 2,
      }),
      providerFault: fc.option(providerFaultArb, { nil: null }),
    });
  });

interface Payment extends PaymentSpec {
  digest: string;
  /** Base units of USDC the merchant received. */
  mist: bigint;
  creditable: boolean;
}

function pay(spec: PaymentSpec): Payment {
  const claimant = users[spec.claimant]!;
  const payer = spec.byClaimant ? claimant.sui! : Ed25519Keypair.generate().toSuiAddress();
  const mist = spec.kind === 'tooSmall' ? BigInt(spec.amount) : BigInt(spec.amount) * 1_000n + 1_000_000n;
  const digest = sui.createPayment({
    payer,
    receiver: spec.kind === 'wrongReceiver' ? elsewhere : merchant,
    amountMist: mist,
    coinType: spec.kind === 'wrongCoin' ? '0x2::sui::SUI' : USDC,
    nonce: randomUUID(),
    failed: spec.kind === 'failed',
  });
  return { ...spec, digest, mist, creditable: spec.kind === 'valid' && spec.byClaimant };
}

const verify = (digest: string, userId: string) =>
  new TestClient(search.url).request('POST', '/api/payment/verify', { txHash: digest, userId });

/** What the search service sends for a verified payment: a retry of its forward, straight to the gateway. */
const confirm = (payment: Payment) =>
  new TestClient(gatewayUrl).request(
    'POST',
    `/api/deposit/${users[payment.claimant]!.userId}/${users[payment.claimant]!.sui}/confirm`,
    { amount: payment.mist.toString(), transactionHash: payment.digest, network: 'testnet', currency: USDC },
    { 'x-webhook-secret': depositSecret },
  );

async function restartGateway(): Promise<void> {
  const old = stack.apps.shift();
  await old?.close();
  gatewayUrl = await stack.startGateway();
  hop.retarget(gatewayUrl);
}

async function restartSearch(): Promise<void> {
  await search.close();
  await startSearch();
}

async function run(operation: Operation, payments: Payment[]): Promise<void> {
  tally.operations += 1;
  figures.requestsSent += 1;
  // A request that hits a restarting process fails like a dropped connection: the model's
  // clients shrug it off, as the owners retry at the end.
  const swallow = () => undefined;
  switch (operation.op) {
    case 'verify': {
      const payment = payments[operation.payment]!;
      const claimant = users[payment.claimant]!;
      const userId =
        operation.by === 'claimant'
          ? claimant.userId
          : operation.by === 'otherUser'
            ? users[(payment.claimant + 1) % users.length]!.userId
            : randomUUID();
      await verify(payment.digest, userId).catch(swallow);
      return;
    }
    case 'confirm': {
      const payment = payments[operation.payment]!;
      if (payment.creditable) await confirm(payment).catch(swallow);
      return;
    }
    case 'restartGateway':
      tally.restarts += 1;
      await restartGateway();
      return;
    case 'restartSearch':
      tally.restarts += 1;
      await restartSearch();
      return;
  }
}

/**
 * The owner asks until the service gives a final answer, as a client whose request failed would:
 * credited (200), refused (422), or claimed by someone else for a payment that is final anyway
 * (its record is no longer PENDING, so there is nothing left for anyone to credit).
 */
async function ownerSettles(payment: Payment, deadline: number): Promise<void> {
  for (;;) {
    const res = await verify(payment.digest, users[payment.claimant]!.userId).catch(() => null);
    if (res && (res.status === 200 || res.status === 422)) return;
    if (res?.status === 409 && res.json.status === 'TX_HASH_CLAIMED') {
      const record = await new TestClient(search.url)
        .request('GET', `/api/payment/transaction/${payment.digest}`)
        .catch(() => null);
      if ((record?.json.data as { status?: string } | undefined)?.status === 'FAILED') return;
    }
    if (Date.now() > deadline) return;
    await sleep(150);
  }
}

async function openWork(digests: string[]): Promise<{ pending: number; claims: number }> {
  const pool = stack.database.pool;
  const pending = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${stack.env.schema}_search".payment_transactions WHERE status = 'PENDING' AND tx_hash = ANY($1)`,
    [digests],
  );
  const claims = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${stack.env.schema}".orders WHERE type = 'deposit' AND status = 'in_progress' AND provider_order_id = ANY($1)`,
    [digests],
  );
  return { pending: Number(pending.rows[0]?.n ?? 0), claims: Number(claims.rows[0]?.n ?? 0) };
}

const provider = () =>
  new ProviderClient({ baseUrl: stack.provider.url, apiKey: stack.provider.apiKey, timeoutMs: 5_000 });

async function balances(): Promise<bigint[]> {
  return Promise.all(
    users.map(async (user) => {
      const all = await provider().getBalances(user.evm!, { tokens: ['usdc'], chains: ['base-sepolia'] });
      return decimalToMist(all.find((b) => b.symbol === 'usdc')?.amount ?? '0', 6);
    }),
  );
}

function injectFaults(scenario: Scenario): void {
  const count = (where: string, kind: string) => {
    tally.faults[where] = (tally.faults[where] ?? 0) + 1;
    tally.faultKinds[`${where}:${kind}`] = (tally.faultKinds[`${where}:${kind}`] ?? 0) + 1;
    figures.faultsSurvived += 1;
  };
  for (const mode of scenario.chainFaults) {
    sui.failNext(1, { mode, method: 'sui_getTransactionBlock' });
    count('chain', mode);
  }
  if (scenario.hopFaults.length > 0) hop.faultNext(...scenario.hopFaults);
  for (const fault of scenario.hopFaults) count('hop', fault);
  if (scenario.providerFault) {
    const { mode, status, times } = scenario.providerFault;
    stack.provider.failNext('wallets.fund', scenario.providerFault);
    for (let i = 0; i < times; i += 1) count('provider', `${mode}/${status}`);
  }
}

describe('deposit pipeline under faults, restarts and adversaries', () => {
  it('credits each digest exactly once iff it is a valid payment by its claimant, and strands nothing', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        tally.scenarios += 1;
        const before = await balances();
        const payments = scenario.payments.map(pay);
        tally.payments += payments.length;
        injectFaults(scenario);
        const startedAt = Date.now();
        for (const round of scenario.rounds) await Promise.all(round.map((op) => run(op, payments)));

        // The faults were the scenario's; what follows is the owners and the reconcilers settling it.
        stack.provider.clearFaults();
        hop.clearFaults();
        const deadline = Date.now() + SETTLE_MS;
        await Promise.all(payments.map((payment) => ownerSettles(payment, deadline)));
        const digests = payments.map((p) => p.digest);
        let open = await openWork(digests);
        while ((open.pending > 0 || open.claims > 0) && Date.now() < deadline) {
          await sleep(200);
          open = await openWork(digests);
        }

        tally.slowestScenarioMs = Math.max(tally.slowestScenarioMs, Date.now() - startedAt);
        const after = await balances();
        const runner = new DeciderRunner(await stack.store());
        for (const [i, user] of users.entries()) {
          const expected = payments
            .filter((p) => p.creditable && p.claimant === i)
            .reduce((sum, p) => sum + p.mist, 0n);
          const delta = after[i]! - before[i]!;
          if (delta > expected) tally.doubleCredits += 1;
          expect({ user: user.userId, credited: delta.toString() }).toEqual({
            user: user.userId,
            credited: expected.toString(),
          });
        }
        for (const payment of payments) {
          const { state } = await runner.state(depositAggregate, payment.digest);
          if (payment.creditable) tally.creditsExpected += 1;
          if (state.status === 'credited') tally.creditsMade += 1;
          expect({
            digest: payment.digest,
            kind: payment.kind,
            credited: state.status === 'credited',
          }).toEqual({
            digest: payment.digest,
            kind: payment.kind,
            credited: payment.creditable,
          });
        }
        tally.stranded += open.pending + open.claims;
        expect(open).toEqual({ pending: 0, claims: 0 });
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  }, 600_000);
});
