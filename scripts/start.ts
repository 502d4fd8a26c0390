import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { createInterface } from 'node:readline';
import { backingServices, unreachable } from './preflight';

/**
 * `npm start`: checks NATS, Postgres and Redis, migrates, then runs every service of the
 * stack in the foreground with its output prefixed, and prints where each one listens.
 */
interface ServiceSpec {
  name: string;
  entry: string;
  env: Record<string, string>;
  ready: RegExp;
  url?: string;
}

const root = resolve(__dirname, '..');

/**
 * Local secrets made on the first start and kept in .env.local (ignored by git), so a
 * restart can still decrypt the wallet keys it stored and verify the stand-in's webhooks.
 */
function localSecrets(): Record<string, string> {
  const file = resolve(root, '.env.local');
  const saved = existsSync(file)
    ? Object.fromEntries(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      )
    : {};
  const objectId = () => `0x${randomBytes(32).toString('hex')}`;
  const wanted: Record<string, () => string> = {
    WALLET_ENCRYPTION_KEY: () => randomBytes(32).toString('hex'),
    PROVIDER_WEBHOOK_SECRET: () => `whsec_${randomBytes(24).toString('base64')}`,
    DEPOSIT_WEBHOOK_SECRET: () => randomBytes(24).toString('hex'),
    CHAIN_CONTRACT_ADDRESS: objectId,
    CHAIN_CART_REGISTRY_ID: objectId,
    CHAIN_PAYMENT_PACKAGE_ID: objectId,
    CHAIN_MERCHANT_ADDRESS: () => Ed25519Keypair.generate().toSuiAddress(),
    CHAIN_RELAYER_PRIVATE_KEY: () => Ed25519Keypair.generate().getSecretKey(),
    CHAIN_USDC_COIN_TYPE: () => `${objectId()}::usdc::USDC`,
  };
  let changed = false;
  for (const [name, make] of Object.entries(wanted)) {
    if (!saved[name]) {
      saved[name] = make();
      changed = true;
    }
  }
  if (changed)
    writeFileSync(
      file,
      Object.entries(saved)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\n',
      { mode: 0o600 },
    );
  return saved;
}

const env: NodeJS.ProcessEnv = { ...localSecrets(), ...process.env };
const gatewayPort = env.PORT ?? '3000';
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const searchPort = '3001';
const analyticsPort = '3002';
const stand = (port: string) => `http://127.0.0.1:${port}`;

const useProviderSandbox = !env.PROVIDER_API_URL;
const useApifySandbox = !env.APIFY_API_BASE_URL && !env.APIFY_API_TOKEN;
const useSuiSandbox = !env.CHAIN_RPC_URL;
const apifyToken = 'apify_sandbox_local';

/** What the services need to talk to the stand-ins; real URLs in the environment take precedence. */
const providerEnv: Record<string, string> = useProviderSandbox
  ? {
      PROVIDER_API_URL: stand('4010'),
      PROVIDER_API_KEY: 'sk_sandbox_local',
      PROVIDER_JWKS_URL: `${stand('4010')}/.well-known/jwks.json`,
      PROVIDER_JWT_ISSUER: 'provider-sandbox',
      PROVIDER_JWT_AUDIENCE: 'provider-sandbox',
    }
  : {};
const chainEnv: Record<string, string> = useSuiSandbox ? { CHAIN_RPC_URL: stand('4030') } : {};
const apifyEnv: Record<string, string> = useApifySandbox
  ? { APIFY_API_BASE_URL: stand('4020'), APIFY_API_TOKEN: apifyToken }
  : {};

const services: ServiceSpec[] = [
  ...(useProviderSandbox
    ? [
        {
          name: 'provider',
          entry: 'infra/sandbox/provider/src/main.ts',
          env: {
            PORT: '4010',
            PROVIDER_API_KEY: 'sk_sandbox_local',
            PROVIDER_WEBHOOK_URL: `${gatewayUrl}/api/webhooks/provider`,
          },
          ready: /provider sandbox listening/,
          url: `${stand('4010')} (stand-in of the payment provider)`,
        },
      ]
    : []),
  ...(useApifySandbox
    ? [
        {
          name: 'apify',
          entry: 'infra/sandbox/apify/src/main.ts',
          env: { PORT: '4020', APIFY_SANDBOX_TOKEN: apifyToken },
          ready: /sandbox listening/,
          url: `${stand('4020')} (stand-in of the scraping platform)`,
        },
      ]
    : []),
  ...(useSuiSandbox
    ? [
        {
          name: 'sui',
          entry: 'infra/sandbox/sui/src/main.ts',
          env: { PORT: '4030' },
          ready: /Sui stand-in listening/,
          url: `${stand('4030')} (stand-in of the Sui JSON-RPC node)`,
        },
      ]
    : []),
  {
    name: 'projector',
    entry: 'services/projector/src/main.ts',
    env: {},
    ready: /projector started/,
    url: `${stand(env.METRICS_PORT ?? '9464')} (projector: /metrics, /ready)`,
  },
  {
    name: 'gateway',
    entry: 'services/gateway/src/main.ts',
    env: { PORT: gatewayPort, ...providerEnv, ...chainEnv },
    ready: /gateway listening/,
    url: gatewayUrl,
  },
  {
    name: 'search',
    entry: 'services/search/src/main.ts',
    env: {
      PORT: searchPort,
      BACKEND_URL: gatewayUrl,
      CHAIN_NETWORK: 'localnet',
      CHAIN_COIN_TYPE: env.CHAIN_USDC_COIN_TYPE ?? '',
      CHAIN_PAYMENT_AMOUNT_MIST: env.CHAIN_PAYMENT_AMOUNT_MIST ?? '1000000',
      ...chainEnv,
      ...apifyEnv,
    },
    ready: /search listening/,
    url: `${stand(searchPort)} (search and payment service)`,
  },
  {
    name: 'analytics',
    entry: 'services/analytics/src/main.ts',
    env: { PORT: analyticsPort },
    ready: /analytics started/,
    url: `${stand(analyticsPort)} (analytics: /metrics, /ready; report with npm run analytics -- report)`,
  },
];

const children: ChildProcess[] = [];

function run(spec: ServiceSpec): Promise<void> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', resolve(root, spec.entry)], {
      cwd: root,
      env: { ...env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let started = false;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`[${spec.name}] ${line}\n`);
        if (!started && spec.ready.test(line)) {
          started = true;
          ready();
        }
      });
    }
    child.once('exit', (code) => {
      if (!started) fail(new Error(`${spec.name} exited with code ${code} before it was ready`));
      else if (!stopping) {
        process.stderr.write(`[start] ${spec.name} exited with code ${code}; stopping the stack\n`);
        stop(1);
      }
    });
  });
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 5000).unref();
  Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  ).then(() => process.exit(code));
}

async function main(): Promise<void> {
  process.stdout.write(
    '[start] development stack: TypeScript through the runtime transpiler (@swc-node/register).\n' +
      '[start] The compiled production build runs as README "Running the built stack" shows.\n',
  );
  const missing = await unreachable(backingServices(env));
  if (missing.length > 0) {
    for (const dependency of missing) {
      process.stderr.write(
        `${dependency.name} is not reachable at ${dependency.url}.\n  Start it with: ${dependency.howToStart}\n`,
      );
    }
    process.exit(1);
  }
  await new Promise<void>((done, fail) => {
    const migrate = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(root, 'scripts/migrate.ts')],
      {
        cwd: root,
        env,
        stdio: 'inherit',
      },
    );
    migrate.once('exit', (code) => (code === 0 ? done() : fail(new Error('migration failed'))));
  });
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  for (const service of services) await run(service);
  process.stdout.write('\nThe stack is up:\n');
  for (const service of services) {
    process.stdout.write(`  ${service.name.padEnd(12)} ${service.url ?? '(no HTTP port)'}\n`);
  }
  process.stdout.write(`  ${'API docs'.padEnd(12)} http://127.0.0.1:${gatewayPort}/swagger\n\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[start] ${error instanceof Error ? error.message : String(error)}\n`);
  stop(1);
});
