import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { figures, isEnvelope, product, send, Shopper, Stack, writeFigures } from './harness';

/**
 * A property-based fuzzer over every operation of /doc: path parameters, query strings and
 * bodies that are malformed, oversized, wrongly typed, at the boundaries, SQL-looking, unicode,
 * very long or deeply nested. Never a 5xx; a refusal in the shape its standard gives (JSON-RPC's
 * error at /mcp, RFC 6749's at the OAuth endpoints, an HTML page from the consent page, the
 * spec's {error, code} envelope everywhere else); answered without hanging, and no event from a
 * refused request (each request carries its own correlation id, which every event it causes
 * records). RELIABILITY_FUZZ_RUNS sets the runs per operation, RELIABILITY_FUZZ_SEED the seed.
 */
const runsPerOperation = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 15);
const seed = Number(process.env.RELIABILITY_FUZZ_SEED ?? 46);

/** How an operation answers a refusal, by the standard it speaks. */
type Standard = 'json-rpc' | 'oauth' | 'consent-page' | 'envelope';
const standardOf = (path: string): Standard =>
  path === '/mcp'
    ? 'json-rpc'
    : path === '/oauth/authorize'
      ? 'consent-page'
      : path.startsWith('/oauth/')
        ? 'oauth'
        : 'envelope';

type JsonSchema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; schema: JsonSchema; required: boolean }[];
  body: JsonSchema | null;
  /** The body's media type as /doc gives it: the OAuth endpoints take forms. */
  form: boolean;
  standard: Standard;
}
interface Attempt {
  correlationId: string;
  operation: string;
  status: number;
  contentType: string | null;
  request: string;
  body: string;
}

let sui: SuiSandbox;
let stack: Stack;
/** Fuzzes every operation, account closure included; `shopper` keeps an open account for the checks after. */
let fuzzer: Shopper;
let shopper: Shopper;
let document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> };
};
const attempts: Attempt[] = [];
let counter = 0;
/** The fuzzer's own agent: its token reaches the tools, its client and redirect the consent page. */
const agentRedirect = 'http://127.0.0.1:21799/callback';
let agentToken: string;
let toolNames: string[];
/** Values a field or parameter of this name takes now and then, so requests get past the lookups. */
const known: Record<string, string[]> = { redirect_uri: [agentRedirect] };

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await Stack.start('fuzz', {
    vars: {
      CHAIN_RPC_URL: sui.url,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: `${sui.paymentPackageId}::usdc::USDC`,
    },
  });
  fuzzer = await stack.shopper({ funds: '100' });
  await fuzzer.client.request('POST', '/api/cart', product('fuzz-seed'));
  await fuzzer.client.request('POST', '/api/sessions', { title: 'seed' });
  shopper = await stack.shopper({ funds: '100' });
  document = (await (await send(`${stack.url}/doc`)).json()) as typeof document;
  await connectAgent();
}, 60_000);

/** The authorization code flow with PKCE, the fuzzer's shopper approving on the consent page. */
async function connectAgent() {
  const json = { 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const cookie = `provider-jwt=${fuzzer.client.cookie('provider-jwt')}`;
  const registered = await send(`${stack.url}/oauth/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ client_name: 'Fuzzing agent', redirect_uris: [agentRedirect] }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  known.client_id = [clientId];
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${stack.url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: agentRedirect,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const page = await (await send(authorize.toString(), { headers: { cookie } })).text();
  const consent = /name="consent" value="([^"]+)"/.exec(page)![1]!;
  const approved = await send(`${stack.url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...form, cookie },
    body: new URLSearchParams({ consent, decision: 'approve' }).toString(),
  });
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const tokens = await send(`${stack.url}/oauth/token`, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: agentRedirect,
      code_verifier: verifier,
    }).toString(),
  });
  agentToken = ((await tokens.json()) as { access_token: string }).access_token;
  const listed = await send(`${stack.url}/mcp`, {
    method: 'POST',
    headers: {
      ...json,
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${agentToken}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  toolNames = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
    (tool) => tool.name,
  );
}
afterAll(async () => {
  writeFigures('fuzz', { runsPerOperation });
  await stack?.stop();
  await sui?.close();
});

/**
 * Every operation of /doc, the agents' first: fuzzing closes the fuzzer's account, which ends its
 * session and its agent, and the consent page and the tools are fuzzed while both still count.
 */
function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const requestBody = op.requestBody as { content: Record<string, { schema: JsonSchema }> } | undefined;
      const [mediaType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters as Operation['params'] | undefined) ?? [],
        body: media?.schema ?? null,
        form: mediaType === 'application/x-www-form-urlencoded',
        standard: standardOf(path),
      });
    }
  }
  const agents = (op: Operation) => (op.standard === 'envelope' ? 1 : 0);
  return out.sort((a, b) => agents(a) - agents(b));
}

// ------------------------------------------------------------------------------------------
// Values: from the schema (so some requests get deep into the handlers), and hostile ones.
// ------------------------------------------------------------------------------------------

const deep = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

const sqlish = [
  "' OR '1'='1",
  "'; DROP TABLE cart_items; --",
  '1; SELECT pg_sleep(10); --',
  "admin'--",
  '" OR ""="',
  "') UNION SELECT password FROM users --",
  '$$; DROP SCHEMA public CASCADE; $$',
  '%27%20OR%201%3D1',
];
const oddStrings = [
  '',
  ' ',
  '\u0000',
  '\u0000abc',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '𝕳𝖊𝖑𝖑𝖔 👋🏽 👨‍👩‍👧‍👦',
  '\u202Egnp.exe',
  '\uD800',
  'NaN',
  '-1',
  '1e309',
  '0x7fffffff',
  'null',
  'undefined',
  '[object Object]',
  'A'.repeat(10_000),
  'é'.repeat(60_000),
];

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...sqlish),
  fc.constantFrom(...oddStrings),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 1, -1e308, 1e308, Number.MIN_VALUE),
  fc.constantFrom(
    [],
    {},
    [[[]]],
    { a: { b: { c: {} } } },
    { __proto__: { admin: true } },
    { constructor: {} },
  ),
  fc.constant(deep(300)),
  fc.jsonValue({ maxDepth: 3 }),
);

function fromSchema(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.jsonValue({ maxDepth: 2 });
  // Named resources are components that operations and other schemas refer to.
  if (typeof schema.$ref === 'string') {
    return fromSchema(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map(fromSchema));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'email') return fc.emailAddress();
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = Math.min((schema.maxLength as number | undefined) ?? 40, Math.max(min, 40));
      return fc.string({ minLength: min, maxLength: max });
    }
    case 'integer':
    case 'number':
      return fc.integer({
        min: (schema.minimum as number | undefined) ?? 1,
        max: (schema.maximum as number | undefined) ?? 100_000,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items as JsonSchema), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.max((schema.minItems as number | undefined) ?? 0, 2),
      });
    case 'object': {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      return fc.record(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, knownOr(k, v)])), {
        requiredKeys: Object.keys(properties).filter((k) => required.has(k)),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function knownOr(name: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  const values = known[name];
  return values ? fc.oneof(fc.constantFrom(...values), fromSchema(schema)) : fromSchema(schema);
}

/** JSON-RPC messages for /mcp, some well formed, naming its tools, with hostile parts. */
const jsonRpcMessage = (): fc.Arbitrary<unknown> =>
  fc.record(
    {
      jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant('2.0') }, hostile),
      id: fc.oneof(fc.nat(), fc.string({ maxLength: 10 }), hostile),
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping') },
        fc.constantFrom('notifications/initialized', 'resources/list', 'rpc.discover'),
        hostile,
      ),
      params: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...toolNames) }, hostile),
            arguments: fc.oneof(
              fc.dictionary(fc.string({ maxLength: 12 }), hostile, { maxKeys: 4 }),
              hostile,
            ),
          }),
        },
        hostile,
      ),
    },
    { requiredKeys: [] },
  );

/** A form body from a generated value: its fields as strings, as a browser or an agent sends them. */
const formOf = (value: unknown): string =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? new URLSearchParams(
        Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]),
      ).toString()
    : String(JSON.stringify(value));

/** encodeURIComponent, with lone surrogates (which it cannot encode) replaced first. */
const encode = (value: string) =>
  encodeURIComponent(
    value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );

interface Case {
  path: string;
  query: string;
  body: string | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  /** Streamable HTTP answers 406 without both media types in Accept. */
  accept: string | undefined;
}

/** One request of `op`: each part valid-looking or hostile, chosen by fast-check. */
function caseOf(op: Operation): fc.Arbitrary<Case> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const segment = fc.oneof(
    fc.uuid(),
    fc.constant(randomUUID()),
    fc.constantFrom(...sqlish, '..', '%2e%2e', '%00', 'x'.repeat(3000), '0'.repeat(64)),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  );
  const pathArb = fc.tuple(...pathParams.map(() => segment)).map((values) => {
    let path = op.path;
    pathParams.forEach((p, i) => {
      const raw = String(values[i]);
      path = path.replace(`{${p.name}}`, raw === '..' || raw.startsWith('%') ? raw : encode(raw));
    });
    return path;
  });
  const queryArb = fc
    .tuple(
      ...queryParams.map((p) =>
        fc.option(
          fc.oneof(
            knownOr(p.name, p.schema).map(String),
            hostile.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
            fc.constantFrom('0', '-1', '999999999999999999999', '1.5', 'abc', '', 'true'),
          ),
          { nil: undefined },
        ),
      ),
      fc.option(fc.constantFrom('unknown=1', 'page=1&page=2', 'limit[]=5', '__proto__[x]=1', '%ZZ'), {
        nil: undefined,
      }),
    )
    .map(([...parts]) => {
      const extra = parts.pop() as string | undefined;
      const pairs = (parts as (string | undefined)[]).flatMap((value, i) =>
        value === undefined ? [] : [`${queryParams[i]!.name}=${encode(value)}`],
      );
      if (extra) pairs.push(extra);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });
  const valid = op.standard === 'json-rpc' ? jsonRpcMessage() : fromSchema(op.body ?? undefined);
  const encoded = (v: unknown) => (op.form ? formOf(v) : JSON.stringify(v));
  const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
    // Valid by the schema: may well succeed.
    { weight: 2, arbitrary: valid.map(encoded) },
    // One field replaced by a hostile value, removed, or an unknown one added.
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, hostile, fc.nat(), fc.constantFrom('replace', 'remove', 'add'))
        .map(([v, bad, n, how]) => {
          if (typeof v !== 'object' || v === null || Array.isArray(v)) return JSON.stringify(bad);
          const copy = { ...(v as Record<string, unknown>) };
          const keys = Object.keys(copy);
          const key = keys.length ? keys[n % keys.length]! : 'extra';
          if (how === 'remove') delete copy[key];
          else if (how === 'add') copy[`x${n % 5}`] = bad;
          else copy[key] = bad;
          return encoded(copy);
        }),
    },
    { weight: 2, arbitrary: hostile.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({
    path: pathArb,
    query: queryArb,
    // fetch sends no body with GET; DELETE sometimes gets one it should ignore.
    body:
      op.method === 'GET'
        ? fc.constant(undefined)
        : op.method === 'DELETE'
          ? fc.option(bodyArb, { nil: undefined, freq: 4 })
          : bodyArb,
    contentType: fc.constantFrom(
      ...(op.form ? ['application/x-www-form-urlencoded'] : ['application/json']),
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      undefined,
    ),
    accept:
      op.standard === 'json-rpc'
        ? fc.constantFrom(
            'application/json, text/event-stream',
            'application/json, text/event-stream',
            undefined,
          )
        : fc.constant(undefined),
    idempotencyKey: fc.option(fc.constantFrom('k', 'x'.repeat(300), '\u00e9\u00e9', randomUUID()), {
      nil: undefined,
      freq: 5,
    }),
  });
}

async function attempt(op: Operation, c: Case): Promise<Attempt> {
  const correlationId = `fuzz-${++counter}`;
  const headers: Record<string, string> = {
    'x-correlation-id': correlationId,
    cookie: `provider-jwt=${fuzzer.client.cookie('provider-jwt')}`,
  };
  if (c.body !== undefined && c.contentType) headers['content-type'] = c.contentType;
  if (c.idempotencyKey) headers['idempotency-key'] = c.idempotencyKey;
  if (op.standard === 'json-rpc') headers.authorization = `Bearer ${agentToken}`;
  if (c.accept) headers.accept = c.accept;
  // A request that hangs fails `send`'s 15 s deadline, and with it the property. The consent
  // page's redirects go to the agent, which is not listening: they are answers, not followed.
  const res = await send(
    `${stack.url}${c.path}${c.query}`,
    { method: op.method, headers, body: c.body, redirect: 'manual' },
    15_000,
  );
  const body = await res.text();
  figures.badInputsTried++;
  return {
    correlationId,
    operation: `${op.method} ${op.path}`,
    status: res.status,
    contentType: res.headers.get('content-type'),
    request: `${op.method} ${c.path}${c.query} ${c.contentType ?? ''} ${(c.body ?? '').slice(0, 200)}`,
    body,
  };
}

const isObject = (json: unknown): json is Record<string, unknown> =>
  typeof json === 'object' && json !== null;

/** RFC 6749 section 5.2 (and RFC 6750's bearer challenges): an error code, maybe a description. */
const isOAuthError = (json: unknown): boolean =>
  isObject(json) &&
  typeof json.error === 'string' &&
  (json.error_description === undefined || typeof json.error_description === 'string');

/** JSON-RPC 2.0's error response. */
const isJsonRpcError = (json: unknown): boolean =>
  isObject(json) &&
  json.jsonrpc === '2.0' &&
  isObject(json.error) &&
  Number.isInteger(json.error.code) &&
  typeof json.error.message === 'string';

/** The shape a refusal of each standard takes. */
const refusalShapes: Record<Standard, { name: string; fits: (json: unknown, a: Attempt) => boolean }> = {
  envelope: { name: 'the envelope', fits: (json) => isEnvelope(json) },
  oauth: { name: "RFC 6749's error", fits: (json) => isOAuthError(json) },
  // Bad client or redirect: a page for the shopper (RFC 6749 4.1.2.1); signed out, a sign-in page.
  'consent-page': {
    name: 'an HTML page',
    fits: (_json, a) => a.contentType?.startsWith('text/html') ?? false,
  },
  // The bearer token's challenges are RFC 6750's; everything past them is JSON-RPC's.
  'json-rpc': {
    name: "JSON-RPC's error",
    fits: (json, a) => isJsonRpcError(json) || ((a.status === 401 || a.status === 403) && isOAuthError(json)),
  },
};

function problemsOf(a: Attempt, standard: Standard): string[] {
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`${a.status}`);
  if (a.status >= 400) {
    let json: unknown;
    try {
      json = JSON.parse(a.body);
    } catch {
      json = undefined;
    }
    const shape = refusalShapes[standard];
    const isJson = a.contentType?.startsWith('application/json') ?? false;
    if (!shape.fits(json, a) || (standard !== 'consent-page' && !isJson)) problems.push(`not ${shape.name}`);
  }
  return problems;
}

describe('fuzzing every operation of /doc', () => {
  it('serves a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(operations().length).toBeGreaterThan(25);
    const paths = new Set(operations().map((op) => op.path));
    for (const path of [
      '/mcp',
      '/oauth/register',
      '/oauth/authorize',
      '/oauth/token',
      '/oauth/revoke',
      '/.well-known/oauth-authorization-server',
      '/health',
      '/test',
      '/catalog/images/{file}',
    ])
      expect(paths, path).toContain(path);
  });

  it('never answers 5xx, always the refusal its standard gives, without hanging, to malformed, oversized and hostile input', async () => {
    const failures: string[] = [];
    for (const op of operations()) {
      await fc
        .assert(
          fc.asyncProperty(caseOf(op), async (c) => {
            let a: Attempt;
            try {
              a = await attempt(op, c);
            } catch (error) {
              failures.push(
                `${String(error)}: ${op.method} ${c.path}${c.query} ${(c.body ?? '').slice(0, 200)}`,
              );
              return false;
            }
            attempts.push(a);
            const res = await fetch(`${stack.url}/health`); // the process is still up
            const problems = problemsOf(a, op.standard);
            if (!res.ok) problems.push('the gateway stopped answering');
            if (problems.length > 0) {
              failures.push(`${problems.join(', ')}: ${a.request} -> ${a.status} ${a.body.slice(0, 300)}`);
              return false;
            }
            return true;
          }),
          {
            numRuns: runsPerOperation,
            endOnFailure: true,
            seed,
          },
        )
        .catch((error: unknown) => {
          // A false property is already in `failures`; anything else (a generator that threw) is not.
          if (
            !failures.some((f) => String(error).includes(f.slice(0, 40))) &&
            !/Property failed/.test(String(error))
          )
            failures.push(`${op.method} ${op.path}: ${String(error).slice(0, 500)}`);
        });
    }
    figures.invariantsBroken += failures.length;
    const byStatus = new Map<number, number>();
    for (const a of attempts) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    console.info(
      `fuzz: ${attempts.length} requests, by status ${JSON.stringify(Object.fromEntries(byStatus))}`,
    );
    expect(failures).toEqual([]);
    expect(attempts.length).toBe(operations().length * runsPerOperation);
  }, 180_000);

  it('records no event for any refused request', async () => {
    const refused = new Set(attempts.filter((a) => a.status >= 400).map((a) => a.correlationId));
    expect(refused.size).toBeGreaterThan(runsPerOperation);
    const store = await stack.store();
    const leaked: string[] = [];
    for await (const commit of store.read()) {
      for (const event of commit)
        if (refused.has(event.correlationId)) leaked.push(`${event.correlationId} ${event.type}`);
    }
    figures.invariantsBroken += leaked.length;
    expect(leaked).toEqual([]);
  });

  it('changes nothing in the stream while an authenticated user sends only refused requests', async () => {
    const store = await stack.store();
    const before = await store.lastStreamSequence();
    const cookie = `provider-jwt=${shopper.client.cookie('provider-jwt')}`;
    const refusals = [
      ['POST', '/api/cart', { ...product('x'), price: 'free' }],
      ['POST', '/api/cart', { ...product('x'), productName: 'n'.repeat(501) }],
      ['POST', '/api/cart', { ...product('x'), price: -5 }],
      ['POST', '/api/checkout', { cartItemId: "' OR 1=1 --" }],
      ['POST', '/api/checkout', { cartItemId: randomUUID() }],
      ['PATCH', `/api/sessions/${randomUUID()}`, { title: 'x' }],
      ['DELETE', `/api/cart/${randomUUID()}`, undefined],
      ['POST', '/api/onboarding/step-2', { country: 'XX' }],
      ['POST', '/api/onboarding/step-3', { topsSize: 'XXXL', bottomsSize: '1', footwearSize: '1' }],
      ['POST', '/api/deposit/verify', { txDigest: 'x', nonce: '1', amount: '1', coinType: 'x' }],
      ['POST', '/api/chat', { messages: [] }],
      ['POST', '/api/sessions', { title: 't'.repeat(256) }],
      ['POST', '/api/webhooks/provider', { type: 'orders.payment.succeeded' }],
      [
        'POST',
        `/api/deposit/${randomUUID()}/0x1/confirm`,
        { amount: '1', transactionHash: 'a', network: 'n', currency: 'c' },
      ],
    ] as const;
    for (let round = 0; round < 4; round++) {
      for (const [method, path, body] of refusals) {
        const res = await send(`${stack.url}${path}`, {
          method,
          headers: { cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        figures.badInputsTried++;
        expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        expect(isEnvelope(await res.json())).toBe(true);
      }
    }
    expect(await store.lastStreamSequence()).toBe(before);
  }, 60_000);

  it('refuses oversized bodies and deeply nested or huge JSON in the envelope, without hanging', async () => {
    const cookie = `provider-jwt=${shopper.client.cookie('provider-jwt')}`;
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const manyKeys = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    const cases: [string, string, string, number[]][] = [
      [
        '/api/cart',
        JSON.stringify({ ...product('big'), productName: 'x'.repeat(2 * 1024 * 1024) }),
        'application/json',
        [413],
      ],
      ['/api/cart', nested(100_000), 'application/json', [400]],
      ['/api/cart', nestedObjects(50_000), 'application/json', [400]],
      ['/api/chat', `{"messages": [${nested(5000)}]}`, 'application/json', [400]],
      ['/api/cart', manyKeys, 'application/json', [400]],
      ['/api/sessions', `{"title": "${'\\u0000'.repeat(10)}"}`, 'application/json', [201, 400]],
      ['/api/cart', '{"productId": "a", ', 'application/json', [400]],
      ['/api/cart', Buffer.from([0xff, 0xfe, 0x7b, 0x22]).toString('latin1'), 'application/json', [400]],
      ['/api/webhooks/provider', 'x'.repeat(1024 * 1024 + 1), 'application/json', [413]],
    ];
    for (const [path, body, contentType, expected] of cases) {
      // Every hostile body is answered in the spec's envelope (a hang fails `send`'s deadline).
      const res = await send(`${stack.url}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': contentType },
        body,
      });
      const json = await res.json().catch(() => null);
      figures.badInputsTried++;
      expect(expected, `${path} ${body.slice(0, 40)}: ${res.status} ${JSON.stringify(json)}`).toContain(
        res.status,
      );
      if (res.status >= 400) expect(isEnvelope(json), JSON.stringify(json)).toBe(true);
    }
    // Request lines and headers beyond Node's limits are refused before routing, still in the envelope.
    for (const [url, headers, status] of [
      [`${stack.url}/api/orders?phase=${'x'.repeat(20_000)}`, {}, 431],
      [`${stack.url}/health`, { 'x-filler': 'y'.repeat(20_000) }, 431],
      [`${stack.url}/api/sessions/${'a'.repeat(150)}`, {}, 414],
    ] as const) {
      const res = await send(url, { headers: { cookie, ...headers } });
      figures.badInputsTried++;
      expect(res.status).toBe(status);
      expect(isEnvelope(await res.json())).toBe(true);
    }
    expect((await send(`${stack.url}/health`)).status).toBe(200);
  }, 60_000);
});
