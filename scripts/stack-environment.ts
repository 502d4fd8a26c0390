import { randomBytes } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { loadConfig, stackEnv, type StackSettings } from '@shop/config';
import { TESTNET_USDC } from '@shop/sandbox-sui';

/**
 * What `npm start` runs and what each process receives, composed from the operator's environment
 * and the locally generated secrets of `.env.local`. Pure: `scripts/start.ts` does the I/O.
 *
 * Rules: a variable the operator sets (even to the empty string, which the services read as unset)
 * always wins; a stand-in runs only when the operator names none of its system's variables, and
 * only then are its identities and secrets generated and used; every process's port can be set.
 */
export type Env = Record<string, string | undefined>;

/** Makes one generated value; `known` holds the values decided before it (an id another derives from). */
export type SecretMaker = (known: Env) => string;

/** A port of one process: the operator's variable, its default, and the name the process reads. */
interface PortSetting {
  variable: string;
  fallback: number;
  /** The variable the process itself reads (PORT for most). */
  as: string;
}

/** What the processes of the stack know about each other. */
interface StackContext {
  gatewayUrl: string;
  /** The environment every process starts from: stand-in wiring, local secrets, then the operator's. */
  base: Env;
}

/** A local stand-in of an external system, run by `npm start` unless the operator points at the real one. */
export interface StandIn {
  name: string;
  /** The external system, as the start-up summary names it. */
  system: string;
  entry: string;
  ready: RegExp;
  port: PortSetting;
  /** Naming any of these (even empty) means the operator chose the real system, or none. */
  realSystemVariables: readonly string[];
  /** The real system's address as the summary shows it. */
  realUrl(env: Env): string;
  /** Identities and secrets shared by the stand-in and the services; generated once, kept in .env.local. */
  secrets: Readonly<Record<string, SecretMaker>>;
  /** What the services need to use the stand-in at `url`. */
  clientEnv(url: string): Env;
  /** The stand-in's own variables, given the stack (below the operator's values, like everything else). */
  ownEnv?(stack: StackContext): Env;
}

/** A service of the stack itself. */
interface Service {
  name: string;
  entry: string;
  ready: RegExp;
  port: PortSetting;
  /** Where a service that also listens for /metrics does so; each its own, so they never collide. */
  metricsPort?: PortSetting;
  describe(url: string): string;
  /** Defaults of this service that depend on the rest of the stack. */
  defaults?(stack: StackContext): Env;
}

const objectId = () => `0x${randomBytes(32).toString('hex')}`;
const local = (port: number) => `http://127.0.0.1:${port}`;

/** The stack's own keys, which no external system shares: always generated unless the operator sets them. */
export const STACK_SECRETS: Readonly<Record<string, SecretMaker>> = {
  WALLET_ENCRYPTION_KEY: () => randomBytes(32).toString('hex'),
  DEPOSIT_WEBHOOK_SECRET: () => randomBytes(24).toString('hex'),
};

const PROVIDER_SANDBOX_KEY = 'sk_sandbox_local';
const PROVIDER_SANDBOX_ISSUER = 'provider-sandbox';
const APIFY_SANDBOX_TOKEN = 'apify_sandbox_local';
const MODEL_SANDBOX_KEY = 'sk-sandbox-local';
const MODEL_SANDBOX_MODEL = 'offline-shopping-assistant';

/** One entry per stand-in: adding a stand-in is adding an entry. */
export const STAND_INS: readonly StandIn[] = [
  {
    name: 'provider',
    system: 'payment provider',
    entry: 'infra/sandbox/provider/src/main.ts',
    ready: /provider sandbox listening/,
    port: { variable: 'PROVIDER_SANDBOX_PORT', fallback: 4010, as: 'PORT' },
    realSystemVariables: ['PROVIDER_API_URL', 'PROVIDER_JWKS_URL'],
    realUrl: (env) => env.PROVIDER_API_URL || env.PROVIDER_JWKS_URL || '(none)',
    secrets: { PROVIDER_WEBHOOK_SECRET: () => `whsec_${randomBytes(24).toString('base64')}` },
    clientEnv: (url) => ({
      PROVIDER_API_URL: url,
      PROVIDER_API_KEY: PROVIDER_SANDBOX_KEY,
      PROVIDER_JWKS_URL: `${url}/.well-known/jwks.json`,
      PROVIDER_JWT_ISSUER: PROVIDER_SANDBOX_ISSUER,
      PROVIDER_JWT_AUDIENCE: PROVIDER_SANDBOX_ISSUER,
    }),
    // Webhooks need a secret to be signed with; without one (the operator emptied it) none are sent.
    ownEnv: ({ gatewayUrl, base }) =>
      base.PROVIDER_WEBHOOK_SECRET ? { PROVIDER_WEBHOOK_URL: `${gatewayUrl}/api/webhooks/provider` } : {},
  },
  {
    name: 'apify',
    system: 'scraping platform',
    entry: 'infra/sandbox/apify/src/main.ts',
    ready: /sandbox listening/,
    port: { variable: 'APIFY_SANDBOX_PORT', fallback: 4020, as: 'PORT' },
    realSystemVariables: ['APIFY_API_BASE_URL', 'APIFY_API_TOKEN'],
    realUrl: (env) => env.APIFY_API_BASE_URL || 'https://api.apify.com',
    secrets: {},
    clientEnv: (url) => ({ APIFY_API_BASE_URL: url, APIFY_API_TOKEN: APIFY_SANDBOX_TOKEN }),
    ownEnv: ({ base }) => ({ APIFY_SANDBOX_TOKEN: base.APIFY_API_TOKEN }),
  },
  {
    name: 'sui',
    system: 'Sui JSON-RPC node',
    entry: 'infra/sandbox/sui/src/main.ts',
    ready: /Sui stand-in listening/,
    port: { variable: 'SUI_SANDBOX_PORT', fallback: 4030, as: 'PORT' },
    realSystemVariables: ['CHAIN_RPC_URL'],
    realUrl: (env) => env.CHAIN_RPC_URL || '(none)',
    // The stand-in publishes its contract, registry and payment package under these ids.
    secrets: {
      CHAIN_CONTRACT_ADDRESS: objectId,
      CHAIN_CART_REGISTRY_ID: objectId,
      CHAIN_PAYMENT_PACKAGE_ID: objectId,
      CHAIN_MERCHANT_ADDRESS: () => Ed25519Keypair.generate().toSuiAddress(),
      CHAIN_RELAYER_PRIVATE_KEY: () => Ed25519Keypair.generate().getSecretKey(),
    },
    clientEnv: (url) => ({
      CHAIN_RPC_URL: url,
      // Testnet USDC, the coin the existing frontend deposits: the stand-in pays in it, the services
      // accept it. Not a generated secret, so an older .env.local's own coin no longer applies.
      CHAIN_COIN_TYPE: TESTNET_USDC,
      CHAIN_NETWORK: 'localnet',
      CHAIN_PAYMENT_AMOUNT_MIST: '1000000',
    }),
  },
  {
    name: 'model',
    system: 'chat model',
    entry: 'infra/sandbox/model/src/main.ts',
    ready: /model sandbox listening/,
    port: { variable: 'MODEL_SANDBOX_PORT', fallback: 4040, as: 'PORT' },
    // CHAT_MODEL=offline (or any model the operator names) is the operator's choice of model too.
    realSystemVariables: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CHAT_MODEL'],
    realUrl: (env) =>
      env.OPENAI_API_KEY
        ? env.OPENAI_BASE_URL || 'https://api.openai.com/v1'
        : '(the in-process offline model: OPENAI_API_KEY unset)',
    secrets: {},
    // The stand-in answers through the production client, as a real OpenAI-compatible server would.
    clientEnv: (url) => ({
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: MODEL_SANDBOX_KEY,
      CHAT_MODEL: MODEL_SANDBOX_MODEL,
    }),
    ownEnv: () => ({ MODEL_SANDBOX_API_KEY: MODEL_SANDBOX_KEY, MODEL_SANDBOX_MODELS: MODEL_SANDBOX_MODEL }),
  },
];

export const SERVICES: readonly Service[] = [
  {
    name: 'projector',
    entry: 'services/projector/src/main.ts',
    ready: /projector started/,
    port: { variable: 'METRICS_PORT', fallback: 9464, as: 'METRICS_PORT' },
    describe: (url) => `${url} (projector: /metrics, /ready)`,
  },
  {
    name: 'gateway',
    entry: 'services/gateway/src/main.ts',
    ready: /gateway listening/,
    port: { variable: 'PORT', fallback: 3000, as: 'PORT' },
    metricsPort: { variable: 'GATEWAY_METRICS_PORT', fallback: 9465, as: 'METRICS_PORT' },
    describe: (url) => url,
  },
  {
    name: 'search',
    entry: 'services/search/src/main.ts',
    ready: /search listening/,
    port: { variable: 'SEARCH_PORT', fallback: 3001, as: 'PORT' },
    metricsPort: { variable: 'SEARCH_METRICS_PORT', fallback: 9466, as: 'METRICS_PORT' },
    describe: (url) => `${url} (search and payment service)`,
    defaults: ({ gatewayUrl }) => ({
      BACKEND_URL: gatewayUrl,
    }),
  },
  {
    name: 'analytics',
    entry: 'services/analytics/src/main.ts',
    ready: /analytics started/,
    port: { variable: 'ANALYTICS_PORT', fallback: 3002, as: 'PORT' },
    describe: (url) => `${url} (analytics: /metrics, /ready; report with npm run analytics -- report)`,
  },
];

/** One process to start, in order. */
export interface StackProcess {
  name: string;
  entry: string;
  ready: RegExp;
  env: Env;
  url: string;
}

/** Per external system: the real one at `url`, the stand-in `npm start` runs there, or none. */
export interface ExternalSystem {
  system: string;
  use: 'real' | 'stand-in' | 'none';
  /** The address, or for `none` what the stack does without the system. */
  url: string;
}

/** External systems without a stand-in: the real one when configured, else the stack goes without. */
const UNSTOOD_EXTERNALS: readonly { system: string; url(env: Env): string | undefined; without: string }[] = [
  {
    system: 'memory service',
    url: (env) => env.MEMWAL_URL || undefined,
    without: "the stack's own memory store (MEMWAL_URL unset)",
  },
];

export interface StackPlan {
  processes: StackProcess[];
  externals: ExternalSystem[];
  gatewayUrl: string;
}

const isSet = (env: Env, name: string) => env[name] !== undefined;

/** Every process's stack-wide port variable with its port when unset: what stackEnv checks. */
export function stackPorts(): Record<string, number> {
  const settings = [...STAND_INS, ...SERVICES].flatMap((spec) => [
    spec.port,
    ...('metricsPort' in spec && spec.metricsPort ? [spec.metricsPort] : []),
  ]);
  return Object.fromEntries(settings.map((setting) => [setting.variable, setting.fallback]));
}

/** The stand-ins this operator environment leaves to `npm start`. */
export function standInsToRun(operator: Env): StandIn[] {
  return STAND_INS.filter((standIn) => !standIn.realSystemVariables.some((name) => isSet(operator, name)));
}

/** The generated secrets this run uses: the stack's and its stand-ins', less what the operator set. */
export function secretsToGenerate(operator: Env): Record<string, SecretMaker> {
  const wanted = Object.assign({}, STACK_SECRETS, ...standInsToRun(operator).map((s) => s.secrets)) as Record<
    string,
    SecretMaker
  >;
  return Object.fromEntries(Object.entries(wanted).filter(([name]) => !isSet(operator, name)));
}

const defined = (env: Env): Env =>
  Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));

/**
 * The processes of the stack with the environment each receives, given the operator's environment
 * and the local secrets (only those this run uses are read from it).
 */
export function composeStack(
  operator: Env,
  localSecrets: Env,
  settings: StackSettings = loadConfig(stackEnv(stackPorts()), operator),
): StackPlan {
  const portOf = (setting: PortSetting) => settings.ports[setting.variable]!;
  const running = standInsToRun(operator);
  const used = Object.keys(secretsToGenerate(operator));
  const secrets = Object.fromEntries(
    used.flatMap((name) => (localSecrets[name] ? [[name, localSecrets[name]]] : [])),
  );
  const wiring = Object.assign({}, ...running.map((s) => s.clientEnv(local(portOf(s.port))))) as Env;
  // The services run production rules unless NODE_ENV says otherwise; this local stack is not production.
  const base: Env = { NODE_ENV: 'development', ...wiring, ...secrets, ...defined(operator) };
  const gatewayUrl = local(portOf(SERVICES.find((s) => s.name === 'gateway')!.port));
  const stack: StackContext = { gatewayUrl, base };

  const processes = [
    ...running.map((standIn) => ({ spec: standIn, own: standIn.ownEnv?.(stack) ?? {} })),
    ...SERVICES.map((service) => ({ spec: service, own: service.defaults?.(stack) ?? {} })),
  ].map(({ spec, own }): StackProcess => {
    const port = portOf(spec.port);
    const url = local(port);
    return {
      name: spec.name,
      entry: spec.entry,
      ready: spec.ready,
      // A process reads its port under its own name; the operator sets it under the stack-wide one.
      env: defined({
        ...own,
        ...base,
        [spec.port.as]: String(port),
        ...('metricsPort' in spec && spec.metricsPort
          ? { [spec.metricsPort.as]: String(portOf(spec.metricsPort)) }
          : {}),
      }),
      url: 'describe' in spec ? spec.describe(url) : `${url} (stand-in of the ${spec.system})`,
    };
  });
  const externals = [
    ...STAND_INS.map((standIn): ExternalSystem => {
      if (running.includes(standIn))
        return { system: standIn.system, use: 'stand-in', url: local(portOf(standIn.port)) };
      return { system: standIn.system, use: 'real', url: standIn.realUrl(operator) };
    }),
    ...UNSTOOD_EXTERNALS.map(({ system, url, without }): ExternalSystem => {
      const address = url(operator);
      return address ? { system, use: 'real', url: address } : { system, use: 'none', url: without };
    }),
  ];
  return { processes, externals, gatewayUrl };
}

/** The start-up lines saying, per external system, whether the stack uses the real one or a stand-in. */
export function describeExternals(externals: readonly ExternalSystem[]): string[] {
  const how = { real: 'real', 'stand-in': 'stand-in at', none: 'none:' } as const;
  return externals.map(({ system, use, url }) => `  ${system.padEnd(20)} ${how[use]} ${url}`);
}
