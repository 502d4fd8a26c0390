import { randomUUID } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { figures, isEnvelope, product, send, Shopper, Stack, writeFigures } from './harness';

/**
 * A property-based fuzzer over every operation of /doc: path parameters, query strings and
 * bodies that are malformed, oversized, wrongly typed, at the boundaries, SQL-looking, unicode,
 * very long or deeply nested. Never a 5xx, always the {error, code} envelope for a refusal,
 * answered without hanging, and no event from a refused request (each request carries its own
 * correlation id, which every event it causes records). RELIABILITY_FUZZ_RUNS sets the runs per
 * operation.
 */
const runsPerOperation = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 15);

type JsonSchema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; schema: JsonSchema; required: boolean }[];
  body: JsonSchema | null;
  public: boolean;
}
interface Attempt {
  correlationId: string;
  operation: string;
  status: number;
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
}, 60_000);
afterAll(async () => {
  writeFigures('fuzz', { runsPerOperation });
  await stack?.stop();
  await sui?.close();
});

function operations(): Operation[] {
  const out: Operation[] = [];
  // The spec's API answers in its error envelope; the agents' OAuth endpoints answer RFC 6749's
  // errors and /mcp JSON-RPC's, each in its own standard's shape (mcp-agent.e2e.test.ts).
  for (const [path, methods] of Object.entries(document.paths).filter(([path]) => path.startsWith('/api/'))) {
    for (const [method, op] of Object.entries(methods)) {
      const requestBody = op.requestBody as
        { content: { 'application/json': { schema: JsonSchema } } } | undefined;
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters as Operation['params'] | undefined) ?? [],
        body: requestBody?.content['application/json'].schema ?? null,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
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
      return fc.record(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fromSchema(v)])), {
        requiredKeys: Object.keys(properties).filter((k) => required.has(k)),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

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
            fromSchema(p.schema).map(String),
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
  const valid = fromSchema(op.body ?? undefined);
  const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
    // Valid by the schema: may well succeed.
    { weight: 2, arbitrary: valid.map((v) => JSON.stringify(v)) },
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
          return JSON.stringify(copy);
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
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      undefined,
    ),
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
  // A request that hangs fails `send`'s 15 s deadline, and with it the property.
  const res = await send(
    `${stack.url}${c.path}${c.query}`,
    { method: op.method, headers, body: c.body },
    15_000,
  );
  const body = await res.text();
  figures.badInputsTried++;
  return {
    correlationId,
    operation: `${op.method} ${op.path}`,
    status: res.status,
    request: `${op.method} ${c.path}${c.query} ${c.contentType ?? ''} ${(c.body ?? '').slice(0, 200)}`,
    body,
  };
}

function problemsOf(a: Attempt, contentType: string | null): string[] {
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`${a.status}`);
  if (a.status >= 400) {
    let json: unknown;
    try {
      json = JSON.parse(a.body);
    } catch {
      json = undefined;
    }
    if (!isEnvelope(json) || !contentType?.startsWith('application/json')) problems.push('not the envelope');
  }
  return problems;
}

describe('fuzzing every operation of /doc', () => {
  it('serves a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(operations().length).toBeGreaterThan(25);
  });

  it('never answers 5xx, always the envelope, without hanging, to malformed, oversized and hostile input', async () => {
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
            const problems = problemsOf(a, a.body.startsWith('{') ? 'application/json' : null);
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
            seed: Number(process.env.RELIABILITY_FUZZ_SEED ?? Date.now() % 2 ** 31),
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
