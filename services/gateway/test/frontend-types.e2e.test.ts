import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, TestStack } from './stack';

/** The component names the existing frontend imports from its generated types. */
const frontendNames = [
  'AddCartItem',
  'CartItem',
  'ChatMessage',
  'ChatSession',
  'OnboardingStatus',
  'OnboardingStepResponse',
  'OrderList',
  'OrderSummary',
  'SessionList',
  'SessionWithMessages',
  'UserProfile',
];
/** The names its earlier backend also had. */
const earlierNames = [
  'Error',
  'OnboardingStep1',
  'OnboardingStep2',
  'OnboardingStep3',
  'CartList',
  'CartInit',
  'CartAddress',
  'CartInfo',
  'CheckoutRequest',
  'CheckoutResponse',
  'DepositVerifyRequest',
];

/** Which named schema each operation the frontend calls takes or returns, by reference. */
const references: [operation: string, part: string, name: string][] = [
  ['GET /api/auth/profile', '200', 'UserProfile'],
  ['GET /api/onboarding/status', '200', 'OnboardingStatus'],
  ['POST /api/onboarding/step-1', 'body', 'OnboardingStep1'],
  ['POST /api/onboarding/step-1', '200', 'OnboardingStepResponse'],
  ['POST /api/onboarding/step-2', 'body', 'OnboardingStep2'],
  ['POST /api/onboarding/step-2', '200', 'OnboardingStepResponse'],
  ['POST /api/onboarding/step-3', 'body', 'OnboardingStep3'],
  ['POST /api/onboarding/step-3', '200', 'OnboardingStepResponse'],
  ['GET /api/cart', '200', 'CartList'],
  ['POST /api/cart', 'body', 'AddCartItem'],
  ['POST /api/cart', '201', 'CartItem'],
  ['POST /api/cart/init', '200', 'CartInit'],
  ['GET /api/cart/address', '200', 'CartAddress'],
  ['GET /api/cart/info', '200', 'CartInfo'],
  ['GET /api/sessions', '200', 'SessionList'],
  ['POST /api/sessions', '201', 'ChatSession'],
  ['GET /api/sessions/{id}', '200', 'SessionWithMessages'],
  ['PATCH /api/sessions/{id}', '200', 'ChatSession'],
  ['GET /api/orders', '200', 'OrderList'],
  ['GET /api/orders/{orderId}', '200', 'OrderSummary'],
  ['POST /api/checkout', 'body', 'CheckoutRequest'],
  ['POST /api/checkout', '201', 'CheckoutResponse'],
  ['POST /api/deposit/verify', 'body', 'DepositVerifyRequest'],
  ['GET /api/cart', '401', 'Error'],
  ['POST /api/auth/session', '400', 'Error'],
];

type JsonSchema = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema> };
};

const fixture = join(__dirname, 'fixtures', 'frontend-client.ts');
const ref = (name: string) => `#/components/schemas/${name}`;

let stack: TestStack;
let document: Document;
const workDirectories: string[] = [];

beforeAll(async () => {
  stack = await startTestStack('frontendtypes');
  const response = await fetch(`${stack.url}/doc`, { credentials: 'include' });
  document = (await response.json()) as Document;
});
afterAll(async () => {
  for (const directory of workDirectories) rmSync(directory, { recursive: true, force: true });
  await stack?.stop();
});

function schemaOf(document: Document, operation: string, part: string): unknown {
  const [method, path] = operation.split(' ') as [string, string];
  const op = document.paths[path]?.[method.toLowerCase()] as
    | {
        requestBody?: { content: Record<string, { schema: unknown }> };
        responses: Record<string, JsonSchema>;
      }
    | undefined;
  if (!op) return undefined;
  const content =
    part === 'body'
      ? op.requestBody?.content
      : (op.responses[part]?.content as Record<string, { schema: unknown }> | undefined);
  return content?.['application/json']?.schema;
}

/**
 * What the frontend does: openapi-typescript over a document, then its client compiled against
 * the result (a browser program: DOM types, no Node). All variants go through one program,
 * which parses the DOM types once; the answer is each variant's compiler errors.
 */
async function typeCheckFrontendAgainst<K extends string>(
  variants: Record<K, Document>,
): Promise<Record<K, string[]>> {
  const directories = {} as Record<K, string>;
  for (const [variant, served] of Object.entries(variants) as [K, Document][]) {
    const directory = mkdtempSync(join(tmpdir(), `frontend-types-${variant}-`));
    workDirectories.push(directory);
    writeFileSync(join(directory, 'api.ts'), astToString(await openapiTS(structuredClone(served) as never)));
    copyFileSync(fixture, join(directory, 'client.ts'));
    directories[variant] = directory;
  }
  const program = ts.createProgram({
    rootNames: Object.values<string>(directories).map((directory) => join(directory, 'client.ts')),
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      isolatedModules: true,
    },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const errorsIn = (directory: string) =>
    diagnostics
      .filter((d) => d.file === undefined || d.file.fileName.startsWith(directory))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  return Object.fromEntries(
    (Object.entries(directories) as [K, string][]).map(([variant, directory]) => [
      variant,
      errorsIn(directory),
    ]),
  ) as Record<K, string[]>;
}

/** The document as it would be if `name` had never been named: its schema copied into every use. */
function inlinedDocument(served: Document, name: string): Document {
  const schema = served.components.schemas[name];
  const replace = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replace);
    if (typeof value !== 'object' || value === null) return value;
    if ((value as JsonSchema).$ref === ref(name)) return replace(schema);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
  };
  const copy = replace(served) as Document;
  delete copy.components.schemas[name];
  return copy;
}

function renamedDocument(served: Document, from: string, to: string): Document {
  const text = JSON.stringify(served).replaceAll(`"${ref(from)}"`, `"${ref(to)}"`);
  const copy = JSON.parse(text) as Document;
  const { [from]: schema, ...others } = copy.components.schemas;
  copy.components.schemas = schema ? { ...others, [to]: schema } : others;
  return copy;
}

let typeChecks: ReturnType<typeof checkAll> | undefined;
const checkAll = () =>
  typeCheckFrontendAgainst({
    served: document,
    renamed: renamedDocument(document, 'CartItem', 'CartItemResponse'),
    inlined: inlinedDocument(document, 'AddCartItem'),
  });
/** The served document and two broken copies of it, compiled once for the tests that need them. */
const checked = () => (typeChecks ??= checkAll());

describe("the frontend's generated types", () => {
  it('has a component schema for every name the frontend and its earlier backend use', () => {
    const names = Object.keys(document.components.schemas);
    expect(names).toEqual(expect.arrayContaining([...frontendNames, ...earlierNames]));
    expect(names).not.toContain('ErrorEnvelope');
  });

  it('references each of them from the operations the frontend calls', () => {
    const missing = references.filter(
      ([operation, part, name]) =>
        JSON.stringify(schemaOf(document, operation, part)) !== JSON.stringify({ $ref: ref(name) }),
    );
    expect(missing).toEqual([]);
  });

  // One TypeScript program over three generated copies: CPU-bound, near 30 s when the machine is shared.
  it("generates TypeScript from the served /doc that the frontend's client compiles against", async () => {
    expect((await checked()).served).toEqual([]);
  }, 90_000);

  it('fails that compile when a component is renamed or inlined', async () => {
    const { renamed, inlined } = await checked();
    expect(renamed).toContainEqual(expect.stringMatching(/Property 'CartItem' does not exist/));
    expect(inlined).toContainEqual(expect.stringMatching(/Property 'AddCartItem' does not exist/));
  });
});
